import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { BatchBuffers, encodeBatchBody } from "../../src/client/batch-body.ts";
import { encodeMessageProperties, type Message } from "../../src/client/message.ts";
import { prepareBatch } from "../../src/client/send-request.ts";
import { createUniqueIdGenerator, encodeBatch } from "../../src/protocol/message/index.ts";

const items = [
  {
    flag: 0,
    body: new Uint8Array(1024).fill(0x62),
    head: new TextEncoder().encode("TAGS\u0001a\u0002"),
    pieces: [],
    id: "X1",
  },
  { flag: -7, body: new TextEncoder().encode("é body"), pieces: ["KEYS\u0001", "ключ", "\u0002"], id: "ид" },
  { flag: 3, body: new Uint8Array([1]), pieces: [], id: "" },
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
    items.map((i) => i.head),
    items.flatMap((i) => i.pieces),
    ends,
    items.map((i) => i.id),
    buffers,
  ).body;
};
const expected = () =>
  encodeBatch(
    items.map((i) => ({
      ...i,
      properties:
        (i.head ? new TextDecoder().decode(i.head) : "") +
        i.pieces.join("") +
        (i.id ? `UNIQ_KEY\u0001${i.id}\u0002` : ""),
    })),
  );

const generator = createUniqueIdGenerator({ ip: new Uint8Array([10, 1, 2, 3]), pid: 77, instanceHash: -5 });

describe("batch body", () => {
  test("encodeBatchBody writes the same bytes as encodeBatch, non-ASCII properties included", () => {
    expect(Buffer.from(encode())).toEqual(Buffer.from(expected()));
  });

  test("the message ids of a batch are its UNIQ_KEYs joined by commas, written ids included", () => {
    const plain = encodeBatchBody(
      [new Uint8Array([1]), new Uint8Array([2])],
      [0, 0],
      [undefined, undefined],
      [],
      [0, 0],
      ["A", "ид"],
    );
    expect(plain.msgIds).toBe("A,ид");
    const bodies = [new Uint8Array([1]), new Uint8Array([2]), new Uint8Array([3])];
    const written = encodeBatchBody(
      bodies,
      [0, 0, 0],
      [undefined, undefined, undefined],
      [],
      [0, 0, 0],
      [],
      undefined,
      generator,
    );
    const ids = written.msgIds.split(",");
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(id).toMatch(/^0A010203004DFFFFFFFB[0-9A-F]{12}$/);
    expect(new Set(ids).size).toBe(3);
    const inBody = new TextDecoder().decode(written.body);
    for (const id of ids) expect(inBody).toContain(`UNIQ_KEY\u0001${id}\u0002`);
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

  test("any batch prepareBatch encodes equals encodeBatch of each message's properties string", () => {
    const text = fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 });
    const message: fc.Arbitrary<Message> = fc.record(
      {
        topic: fc.constant("T"),
        body: fc.uint8Array({ minLength: 1, maxLength: 40 }),
        // Few tag values, so the shared-properties cache is hit as well as refilled.
        tags: fc.constantFrom("a", "b", "ключ"),
        keys: fc.array(text, { maxLength: 3 }),
        properties: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), text, { maxKeys: 3 }),
        flag: fc.integer(),
      },
      { requiredKeys: ["topic", "body"] },
    );
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        fc.boolean(),
        (batch, wait, realIds) => {
          const msgs = batch.map((m) => ({ ...m, waitStoreMsgOK: wait }));
          let n = 0;
          // A plain function's ids are written as strings; the client's generator writes in place.
          const prepared = prepareBatch(msgs, {
            nextUniqueId: realIds ? generator : () => `ID${n++}`,
            compressOverBytes: 4096,
            compressLevel: 5,
            bodyBytesMax: 1 << 20,
          });
          const ids = prepared.msgId.split(",");
          expect(ids).toHaveLength(msgs.length);
          expect(new Set(ids).size).toBe(msgs.length);
          const want = encodeBatch(
            msgs.map((m, k) => ({
              flag: m.flag ?? 0,
              body: m.body as Uint8Array,
              properties: encodeMessageProperties(m, ids[k]!),
            })),
          );
          expect(Buffer.from(prepared.body)).toEqual(Buffer.from(want));
        },
      ),
    );
  });
});
