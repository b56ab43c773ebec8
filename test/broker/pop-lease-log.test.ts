/**
 * The POP lease log on its own: every record type reads back as written; a torn or damaged tail
 * ends recovery at the last whole record; a file whose snapshot was never finished is passed over
 * for the older one; rotation leaves one file holding the snapshot and what came after it.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LeaseLog } from "../../broker/services/pop-lease-log.ts";
import {
  decodeLeaseRecords,
  encodeLeaseRecord,
  type LeaseRecord,
  LeaseRecordType,
} from "../../broker/services/pop-lease-records.ts";
import { silent } from "../integration/harness.ts";

const RECORDS: readonly LeaseRecord[] = [
  {
    type: LeaseRecordType.QUEUE,
    qid: 7,
    queueId: 3,
    group: "GID_A",
    topic: "TopicA",
    realTopic: "%RETRY%GID_A_TopicA",
  },
  {
    type: LeaseRecordType.POP,
    qid: 7,
    popTime: 1_700_000_000_000,
    invisibleTime: 60_000,
    reviveQid: 3,
    ckOffset: 100,
    nextBegin: 104,
    offsets: [100, 101, 103],
  },
  { type: LeaseRecordType.DEL, qid: 7, popTime: 1_700_000_000_000, ckOffset: 100, offsets: [101] },
  {
    type: LeaseRecordType.CHANGE,
    qid: 7,
    offset: 103,
    popTime: 1_700_000_001_000,
    invisibleTime: 5000,
    reviveQid: 3,
  },
  { type: LeaseRecordType.ORDER, qid: 7, json: '{"popTime":1}' },
  { type: LeaseRecordType.SNAPSHOT_END },
];
const [QUEUE, POP, DEL] = RECORDS as [LeaseRecord, LeaseRecord, LeaseRecord];

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "rocketbun-lease-log-"));
  dirs.push(d);
  return d;
}

test("every record type decodes to what was encoded", () => {
  const bytes = Buffer.concat(RECORDS.map(encodeLeaseRecord));
  expect(decodeLeaseRecords(bytes)).toEqual({ records: [...RECORDS], validBytes: bytes.length });
});

test("a torn last record and a flipped byte both end the walk at the last whole record", () => {
  const parts = RECORDS.map(encodeLeaseRecord);
  const whole = Buffer.concat(parts.slice(0, 3));
  const torn = Buffer.concat([whole, parts[3]!.subarray(0, 10)]);
  expect(decodeLeaseRecords(torn)).toEqual({ records: RECORDS.slice(0, 3), validBytes: whole.length });
  const damaged = Buffer.concat(parts);
  damaged[whole.length + 12]! ^= 0xff;
  expect(decodeLeaseRecords(damaged).records).toEqual(RECORDS.slice(0, 3));
});

test("recovery reads the newest file with a whole snapshot; a rotation leaves only the new file", async () => {
  const dir = await tempDir();
  const first = new LeaseLog(dir, silent);
  expect(await first.recover()).toEqual({ records: [], files: 0 });
  await first.rotate([QUEUE]);
  await first.append(POP);
  await first.close();
  // A crash in the middle of the next rotation: its file has no SNAPSHOT_END.
  await writeFile(join(dir, `leases-${"2".padStart(20, "0")}.log`), encodeLeaseRecord(QUEUE));
  const second = new LeaseLog(dir, silent);
  const got = await second.recover();
  expect(got.records).toEqual([QUEUE, { type: LeaseRecordType.SNAPSHOT_END }, POP]);
  await second.rotate([QUEUE, POP]);
  await second.append(DEL);
  await second.close();
  expect(await readdir(dir)).toEqual([`leases-${"3".padStart(20, "0")}.log`]);
  const third = new LeaseLog(dir, silent);
  expect((await third.recover()).records).toEqual([QUEUE, POP, { type: LeaseRecordType.SNAPSHOT_END }, DEL]);
});
