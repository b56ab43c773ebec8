/**
 * Child process for the crash tests: appends to a store until killed, printing one
 * `ack <seq> <queueId> <queueOffset> <phyOffset> <size>` line per acknowledged put, while a reader
 * consumes every queue and prints `seen <queueId> <queueOffset> <seq>` per message it was given.
 * Usage: bun appender.ts <storeDir> <ASYNC_FLUSH|SYNC_FLUSH> <round>
 */
import { FileMessageStore } from "../../broker/store/file-store.ts";
import { decodeRecord } from "../../src/protocol/message/index.ts";
import { CRASH_OPTIONS, CRASH_QUEUES, CRASH_TOPIC, crashMessage, seqOfBody } from "./crash-shape.ts";

const [dir, flushDiskType, round] = process.argv.slice(2);
if (!dir || (flushDiskType !== "ASYNC_FLUSH" && flushDiskType !== "SYNC_FLUSH") || !round) {
  throw new Error("usage: appender.ts <dir> <flushDiskType> <round>");
}
const store = new FileMessageStore({ storePathRootDir: dir, ...CRASH_OPTIONS, flushDiskType });
await store.open();
process.stdout.write("ready\n");
const IN_FLIGHT = 8;
let seq = 0;
async function writer(): Promise<void> {
  for (;;) {
    const s = seq++;
    const r = await store.putMessage(crashMessage(Number(round), s));
    if (r.status !== "PUT_OK") throw new Error(`put failed: ${r.status}`);
    const x = r.result!;
    process.stdout.write(`ack ${s} ${s % CRASH_QUEUES} ${x.queueOffset} ${x.wroteOffset} ${x.wroteBytes}\n`);
  }
}

/** Consumes every queue from where the store stands at start, as a consumer pulling without pause. */
async function reader(queueId: number): Promise<void> {
  let offset = store.getMaxOffsetInQueue(CRASH_TOPIC, queueId);
  for (;;) {
    const r = await store.getMessage("CrashReader", CRASH_TOPIC, queueId, offset, 32, 1 << 20);
    for (const rec of r.messages) {
      const d = decodeRecord(rec);
      process.stdout.write(
        `seen ${queueId} ${d.queueOffset} ${seqOfBody(new TextDecoder().decode(d.body))}\n`,
      );
      offset = d.queueOffset + 1;
    }
    if (r.messages.length === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

await Promise.all([
  ...Array.from({ length: IN_FLIGHT }, writer),
  ...Array.from({ length: CRASH_QUEUES }, (_, q) => reader(q)),
]);
