import { describe, expect, test } from "bun:test";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { indexFileBytes, indexKeyHash } from "../../../broker/store/index-file.ts";
import { decodeRecord } from "../../../src/protocol/message/index.ts";
import { openStore } from "./file-store.helpers.ts";
import { manualClock, message, tempDir } from "./helpers.ts";

describe("index file", () => {
  test("header, slot and chained entries are laid out as spec §6.4 says", async () => {
    await using dir = await tempDir();
    const clock = manualClock();
    const t0 = clock.now();
    const s = await openStore(dir.path, { maxHashSlotNum: 8, maxIndexNum: 16 }, { now: clock.now });
    const a = (await s.putMessage(message("T", 0, "a", { KEYS: "K" }))).result!;
    clock.advance(5000);
    const b = (await s.putMessage(message("T", 0, "b", { KEYS: "K" }))).result!;
    await s.shutdown();
    const [name] = await readdir(join(dir.path, "index"));
    expect(name).toMatch(/^\d{17}$/);
    const f = await readFile(join(dir.path, "index", name!));
    const dv = new DataView(f.buffer, f.byteOffset, f.byteLength);
    const i64 = (p: number) => Number(dv.getBigInt64(p));
    expect(f.length).toBe(indexFileBytes(8, 16));
    expect([i64(0), i64(8), i64(16), i64(24), dv.getInt32(32), dv.getInt32(36)]).toEqual([
      t0,
      t0 + 5000,
      a.wroteOffset,
      b.wroteOffset,
      1,
      3,
    ]);
    const hash = indexKeyHash("T#K");
    const slot = 40 + (hash % 8) * 4;
    expect(dv.getInt32(slot)).toBe(2);
    const entry = (n: number) => {
      const p = 40 + 8 * 4 + n * 20;
      return [dv.getInt32(p), i64(p + 4), dv.getInt32(p + 12), dv.getInt32(p + 16)];
    };
    expect([entry(1), entry(2)]).toEqual([
      [hash, a.wroteOffset, 0, 0],
      [hash, b.wroteOffset, 5, 1],
    ]);
  });

  test("a full index file rolls to a new one and queries span both, newest first", async () => {
    await using dir = await tempDir();
    const clock = manualClock();
    const s = await openStore(dir.path, { maxHashSlotNum: 4, maxIndexNum: 4 }, { now: clock.now });
    for (let i = 0; i < 8; i++) {
      await s.putMessage(message("T", 0, `m${i}`, { KEYS: "same" }));
      clock.advance(1000);
    }
    const r = await s.queryMessage("T", "same", 32, 0, Number.MAX_SAFE_INTEGER);
    expect(r.messages.map((m) => new TextDecoder().decode(decodeRecord(m).body))).toEqual(
      Array.from({ length: 8 }, (_, i) => `m${7 - i}`),
    );
    expect((await readdir(join(dir.path, "index"))).length).toBe(3);
    const limited = await s.queryMessage("T", "same", 3, 0, Number.MAX_SAFE_INTEGER);
    expect(limited.messages.length).toBe(3);
    await s.shutdown();
  });
});
