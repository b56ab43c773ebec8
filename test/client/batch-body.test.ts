import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { BatchBuffers, encodeBatchBody } from "../../src/client/batch-body.ts";
import { encodeMessageProperties, type Message, messagePropertyPieces } from "../../src/client/message.ts";
import { encodeBatch } from "../../src/protocol/message/index.ts";

const items = [
  {
    flag: 0,
    body: new Uint8Array(1024).fill(0x62),
    pieces: ["TAGS\u0001", "a", "\u0002UNIQ_KEY\u0001X1\u0002"],
  },
  { flag: -7, body: new TextEncoder().encode("é body"), pieces: ["KEYS\u0001", "ключ", "\u0002"] },
  { flag: 3, body: new Uint8Array([1]), pieces: [] },
];
const encode = (buffers?: BatchBuffers) => {
  const ends: number[] = [];
  let n = 0;
  for (const i of items) {
    n += i.pieces.length;
    ends.push(n);
  }
  return encodeBatchBody(
    items.map((i) => i.body),
    items.map((i) => i.flag),
    items.flatMap((i) => i.pieces),
    ends,
    buffers,
  );
};
const expected = () => encodeBatch(items.map((i) => ({ ...i, properties: i.pieces.join("") })));

describe("batch body", () => {
  test("encodeBatchBody writes the same bytes as encodeBatch, non-ASCII properties included", () => {
    expect(Buffer.from(encode())).toEqual(Buffer.from(expected()));
  });

  test("a recycled buffer full of old bytes still yields exactly encodeBatch's bytes", () => {
    const buffers = new BatchBuffers();
    const first = encode(buffers);
    first.fill(0xff);
    buffers.give(first);
    const second = encode(buffers);
    expect(second.buffer).toBe(first.buffer);
    expect(Buffer.from(second)).toEqual(Buffer.from(expected()));
  });

  test("any batch of messages written piece by piece equals encodeBatch of their properties strings", () => {
    const text = fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 });
    const message: fc.Arbitrary<Message> = fc.record(
      {
        topic: fc.constant("T"),
        body: fc.uint8Array({ minLength: 1, maxLength: 40 }),
        tags: text,
        keys: fc.array(text, { maxLength: 3 }),
        properties: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), text, { maxKeys: 3 }),
        waitStoreMsgOK: fc.boolean(),
        flag: fc.integer(),
      },
      { requiredKeys: ["topic", "body"] },
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(message, fc.stringMatching(/^[0-9A-F]{0,32}$/)), { minLength: 1, maxLength: 6 }),
        (batch) => {
          const pieces: string[] = [];
          const ends: number[] = [];
          for (const [m, id] of batch) {
            messagePropertyPieces(m, id, pieces);
            ends.push(pieces.length);
          }
          const bodies = batch.map(([m]) => m.body as Uint8Array);
          const flags = batch.map(([m]) => m.flag ?? 0);
          const want = encodeBatch(
            batch.map(([m, id], k) => ({
              flag: flags[k]!,
              body: bodies[k]!,
              properties: encodeMessageProperties(m, id),
            })),
          );
          expect(Buffer.from(encodeBatchBody(bodies, flags, pieces, ends))).toEqual(Buffer.from(want));
        },
      ),
    );
  });
});
