/**
 * The crash tests' parent side: runs a store child that reports acknowledged puts and consumed
 * messages, kills it, reopens the store and checks what survived.
 */
import { expect } from "bun:test";
import { join } from "node:path";
import { CQ_UNIT_BYTES, readUnit } from "../../broker/store/consume-queue.ts";
import { FileMessageStore } from "../../broker/store/file-store.ts";
import { scanCommitLog } from "../../broker/store/recovery.ts";
import { decodeRecord } from "../../src/protocol/message/index.ts";
import { CRASH_OPTIONS, CRASH_QUEUES, CRASH_TOPIC, crashBody } from "./crash-shape.ts";

export interface Ack {
  readonly seq: number;
  readonly queueId: number;
  readonly queueOffset: number;
  readonly phy: number;
  readonly size: number;
}

/** Deterministic pseudo-random numbers, so a failing round can be replayed. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** The child's output, a line at a time, as its first word and the rest. */
export async function* childLines(out: ReadableStream<Uint8Array>): AsyncGenerator<[string, string[]]> {
  let rest = "";
  const decoder = new TextDecoder();
  for await (const chunk of out) {
    rest += decoder.decode(chunk, { stream: true });
    const lines = rest.split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      const [kind, ...fields] = line.split(" ");
      yield [kind!, fields];
    }
  }
}

/** An `ack <seq> <queueId> <queueOffset> <phyOffset> <size>` line's fields. */
export function parseAck(fields: string[]): Ack {
  const [seq, queueId, queueOffset, phy, size] = fields.map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  return { seq, queueId, queueOffset, phy, size };
}

/** A message the child's reader was given: its queue, queue offset and sequence number. */
export interface Seen {
  readonly queueId: number;
  readonly queueOffset: number;
  readonly seq: number;
}

/**
 * Runs the child until it has acknowledged `killAfter` puts, kills it, returns every ack it
 * printed and every message its reader consumed.
 */
export async function crashRound(
  dir: string,
  flushDiskType: string,
  round: number,
  killAfter: number,
): Promise<{ acks: Ack[]; seen: Seen[] }> {
  const child = Bun.spawn(
    [process.execPath, join(import.meta.dir, "appender.ts"), dir, flushDiskType, String(round)],
    {
      stdout: "pipe",
      stderr: "inherit",
    },
  );
  const acks: Ack[] = [];
  const seen: Seen[] = [];
  let killed = false;
  for await (const [kind, f] of childLines(child.stdout)) {
    if (kind === "ack") acks.push(parseAck(f));
    else if (kind === "seen") {
      const [queueId, queueOffset, seq] = f.map(Number) as [number, number, number];
      seen.push({ queueId, queueOffset, seq });
    }
    if (!killed && acks.length >= killAfter) {
      child.kill("SIGKILL");
      killed = true;
    }
  }
  await child.exited;
  expect(child.signalCode ?? "exited").toBe("SIGKILL");
  return { acks, seen };
}

/** Reopens the store and checks the invariants; returns the acks that did not survive. */
export async function verify(dir: string, round: number, acks: Ack[], seen: Seen[] = []): Promise<Ack[]> {
  const s = new FileMessageStore({ storePathRootDir: dir, ...CRASH_OPTIONS });
  await s.open();
  try {
    expect(s.recoveryReport!.abnormal).toBe(true);
    // Nothing after the recovered end is garbage: every byte from min to max is a valid record chain.
    const scan = await scanCommitLog(s.cl, s.cl.minOffset, true);
    expect(scan).toEqual({ end: s.getMaxPhyOffset(), reason: undefined });
    const lost: Ack[] = [];
    for (const a of acks) {
      const rec = await s.lookMessageByOffset(a.phy);
      if (!rec) {
        lost.push(a);
        continue;
      }
      const d = decodeRecord(rec);
      expect([d.queueId, d.queueOffset, rec.length, new TextDecoder().decode(d.body)]).toEqual([
        a.queueId,
        a.queueOffset,
        a.size,
        crashBody(round, a.seq),
      ]);
    }
    // What a consumer was given is still what its queue offset names: no offset was handed to
    // another message after recovery.
    const renamed: Seen[] = [];
    for (const m of seen) {
      const phy = await s.getCommitLogOffsetInQueue(CRASH_TOPIC, m.queueId, m.queueOffset);
      const rec =
        m.queueOffset < s.getMaxOffsetInQueue(CRASH_TOPIC, m.queueId)
          ? await s.lookMessageByOffset(phy)
          : undefined;
      if (!rec || new TextDecoder().decode(decodeRecord(rec).body) !== crashBody(round, m.seq))
        renamed.push(m);
    }
    expect(renamed).toEqual([]);
    // Consume queues agree with the CommitLog, unit by unit.
    for (let q = 0; q < CRASH_QUEUES; q++) {
      const cq = s.cqs.find(CRASH_TOPIC, q);
      if (!cq) continue;
      for (let o = cq.minOffset; o < cq.maxOffset; o += 64) {
        const units = await cq.readUnits(o, 64);
        const dv = new DataView(units.buffer, units.byteOffset, units.byteLength);
        for (let k = 0; k * CQ_UNIT_BYTES < units.length; k++) {
          const u = readUnit(dv, k * CQ_UNIT_BYTES);
          const d = decodeRecord((await s.lookMessageByOffset(u.phyOffset))!);
          expect([d.topic, d.queueId, d.queueOffset, d.storeSize]).toEqual([CRASH_TOPIC, q, o + k, u.size]);
        }
      }
    }
    return lost;
  } finally {
    await s.shutdown();
  }
}
