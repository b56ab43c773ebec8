import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { MagicCode } from "../../../src/protocol/message/index.ts";
import { commitLogFiles, openStore, readQueue } from "./file-store.helpers.ts";
import { message, tempDir } from "./helpers.ts";

describe("commitlog segments", () => {
  test("a record that does not fit with 8 bytes to spare ends the file with a BLANK and starts the next", async () => {
    await using dir = await tempDir();
    const s = await openStore(dir.path);
    const body = "x".repeat(900);
    const puts = [];
    for (let i = 0; i < 10; i++) puts.push((await s.putMessage(message("T", 0, body + i))).result!);
    await s.shutdown();
    const files = await commitLogFiles(dir.path);
    expect(files).toEqual(["00000000000000000000", "00000000000000004096", "00000000000000008192"]);
    // Every file is full size; the first holds four records, then a BLANK covering the rest.
    const first = await readFile(join(dir.path, "commitlog", files[0]!));
    const size = puts[0]!.wroteBytes;
    const dv = new DataView(first.buffer, first.byteOffset);
    expect([first.length, dv.getInt32(4 * size), dv.getInt32(4 * size + 4)]).toEqual([
      4096,
      4096 - 4 * size,
      MagicCode.BLANK,
    ]);
    expect(puts.map((p) => p.wroteOffset)).toEqual([
      0,
      size,
      2 * size,
      3 * size,
      4096,
      4096 + size,
      4096 + 2 * size,
      4096 + 3 * size,
      8192,
      8192 + size,
    ]);
    const s2 = await openStore(dir.path);
    expect((await readQueue(s2, "T", 0)).map(([o, b]) => [o, b.slice(-1)])).toEqual(
      Array.from({ length: 10 }, (_, i) => [i, String(i)]),
    );
    await s2.shutdown();
  });

  test("a batch never straddles two files", async () => {
    await using dir = await tempDir();
    const s = await openStore(dir.path);
    await s.putMessage(message("T", 0, "y".repeat(3000)));
    const r = await s.putMessages([message("T", 0, "a".repeat(600)), message("T", 0, "b".repeat(600))]);
    expect([r.status, r.result!.wroteOffset, r.result!.queueOffset]).toEqual(["PUT_OK", 4096, 1]);
    const tooBig = await s.putMessage(message("T", 0, "z".repeat(5000)));
    expect(tooBig.status).toBe("MESSAGE_ILLEGAL");
    await s.shutdown();
  });
});

describe("commitlog chunk buffers", () => {
  test("buffers of written chunks are reused under load and trimmed to a few once appends stop", async () => {
    await using dir = await tempDir();
    // 64 KiB segments: each segment's records fill chunks of their own.
    const s = await openStore(dir.path, {
      mappedFileSizeCommitLog: 64 * 1024,
      maxHashSlotNum: 64,
      maxIndexNum: 4096,
    });
    const body = "x".repeat(20_000);
    // All in flight at once, as under load: the writer lags the appenders by many chunks.
    await Promise.all(Array.from({ length: 40 }, () => s.putMessage(message("T", 0, body))));
    await s.flush();
    const spares = s.cl.spareBufferCount;
    expect(spares).toBeGreaterThan(4);
    s.cl.trimSpareBuffers(); // appends happened since the last call: nothing is dropped
    expect(s.cl.spareBufferCount).toBe(spares);
    s.cl.trimSpareBuffers(); // idle since the previous call
    expect(s.cl.spareBufferCount).toBe(4);
    await s.shutdown();
  });
});
