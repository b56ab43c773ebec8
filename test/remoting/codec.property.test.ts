import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  decodeFrame,
  encodeFrame,
  FrameDecoder,
  FrameError,
  LanguageCode,
  RemotingCommand,
  SerializeType,
} from "../../src/remoting/index.ts";

const int32 = fc.integer({ min: -0x80000000, max: 0x7fffffff });
const int16 = fc.integer({ min: -0x8000, max: 0x7fff });
const text = fc.string({ unit: "grapheme", maxLength: 40 });
const nonEmpty = fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 });

const command = (type: SerializeType) =>
  fc
    .record({
      code: type === SerializeType.ROCKETMQ ? int16 : int32,
      language: fc.constantFrom(...(Object.keys(LanguageCode) as string[])),
      version: type === SerializeType.ROCKETMQ ? int16 : int32,
      opaque: int32,
      flag: fc.integer({ min: 0, max: 3 }),
      // ROCKETMQ cannot carry empty strings (spec §3.3); JSON can.
      remark: fc.option(type === SerializeType.ROCKETMQ ? nonEmpty : text, { nil: null }),
      extFields: fc.option(
        fc.dictionary(text, type === SerializeType.ROCKETMQ ? nonEmpty : text, { maxKeys: 8 }),
        {
          nil: null,
        },
      ),
      body: fc.option(fc.uint8Array({ minLength: 1, maxLength: 300 }), { nil: null }),
    })
    .map((init) => new RemotingCommand({ ...init, serializeType: type }));

/** Decodes everything in `bytes`; only FrameError may escape, as the socket handler expects. */
function decodeAll(bytes: Uint8Array, frameBytesMax: number): number {
  const decoder = new FrameDecoder(frameBytesMax);
  let count = 0;
  try {
    for (const frame of decoder.push(bytes)) {
      decodeFrame(frame);
      count++;
    }
  } catch (err) {
    if (!(err instanceof FrameError)) throw err;
  }
  return count;
}

describe("codec properties", () => {
  for (const type of [SerializeType.JSON, SerializeType.ROCKETMQ]) {
    test(`decode ∘ encode is the identity (${type === 0 ? "JSON" : "ROCKETMQ"})`, () => {
      fc.assert(
        fc.property(command(type), (cmd) => {
          const [frame] = new FrameDecoder().push(encodeFrame(cmd));
          const back = decodeFrame(frame!);
          // An empty remark is indistinguishable from none on the wire; ROCKETMQ has no empty ext map either.
          const noExt =
            type === SerializeType.ROCKETMQ && cmd.extFields && Object.keys(cmd.extFields).length === 0;
          const expected = new RemotingCommand({
            ...cmd,
            remark: cmd.remark === "" ? null : cmd.remark,
            extFields: noExt ? null : cmd.extFields,
          });
          expect(back).toEqual(expected);
        }),
        { numRuns: 300 },
      );
    });
  }

  test("random bytes never throw anything but FrameError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => void decodeAll(bytes, 4096)),
      {
        numRuns: 2000,
      },
    );
  });

  test("truncated and bit-flipped valid frames never throw anything but FrameError", () => {
    const anyCommand = fc.oneof(command(SerializeType.JSON), command(SerializeType.ROCKETMQ));
    fc.assert(
      fc.property(
        anyCommand,
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        (cmd, cutAt, flipAt, bit) => {
          const frame = encodeFrame(cmd);
          const cut = frame.subarray(0, cutAt % (frame.length + 1));
          decodeAll(cut, 1 << 20);
          const flipped = frame.slice();
          flipped[flipAt % flipped.length]! ^= 1 << bit;
          decodeAll(flipped, 1 << 20);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test("a claimed length over the limit is refused without buffering it", () => {
    fc.assert(
      fc.property(fc.integer({ min: 4097, max: 0x7fffffff }), (total) => {
        const head = new Uint8Array(8);
        new DataView(head.buffer).setInt32(0, total);
        const decoder = new FrameDecoder(4100);
        expect(decoder.push(head)).toEqual([]);
        expect({ failed: decoder.failure instanceof FrameError, buffered: decoder.buffered }).toEqual({
          failed: true,
          buffered: 0,
        });
      }),
    );
  });
});
