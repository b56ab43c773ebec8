/**
 * Crash safety with real processes (issues #4, #12): a child appends and reports acknowledged
 * puts while a reader consumes; we SIGKILL it at a random moment, reopen the store and check what
 * survived.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../broker/store/helpers.ts";
import { crashRound, rng, verify } from "./crash-check.ts";

describe("crash safety under SIGKILL", () => {
  for (const [flushDiskType, rounds, seed] of [
    ["SYNC_FLUSH", 12, 4],
    ["ASYNC_FLUSH", 12, 9],
  ] as const) {
    test(`${flushDiskType}: every acknowledged message survives intact, and every consumed offset names the message consumed, over ${rounds} kills`, async () => {
      await using dir = await tempDir();
      const random = rng(seed);
      for (let round = 0; round < rounds; round++) {
        const { acks, seen } = await crashRound(
          dir.path,
          flushDiskType,
          round,
          1 + Math.floor(random() * 300),
        );
        expect(await verify(dir.path, round, acks, seen)).toEqual([]);
      }
    });
  }
});
