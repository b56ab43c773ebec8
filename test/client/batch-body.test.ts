import { describe, expect, test } from "bun:test";
import { BatchBuffers, encodeBatchBody } from "../../src/client/batch-body.ts";
import { encodeBatch } from "../../src/protocol/message/index.ts";

const items = [
  { flag: 0, body: new Uint8Array(1024).fill(0x62), properties: "TAGS\u0001a\u0002UNIQ_KEY\u0001X1\u0002" },
  { flag: -7, body: new TextEncoder().encode("é body"), properties: "KEYS\u0001ключ\u0002" },
  { flag: 3, body: new Uint8Array([1]), properties: "" },
];
const encode = (buffers?: BatchBuffers) =>
  encodeBatchBody(
    items.map((i) => i.body),
    items.map((i) => i.flag),
    items.map((i) => i.properties),
    buffers,
  );

describe("batch body", () => {
  test("encodeBatchBody writes the same bytes as encodeBatch, non-ASCII properties included", () => {
    expect(Buffer.from(encode())).toEqual(Buffer.from(encodeBatch(items)));
  });

  test("a recycled buffer full of old bytes still yields exactly encodeBatch's bytes", () => {
    const buffers = new BatchBuffers();
    const first = encode(buffers);
    first.fill(0xff);
    buffers.give(first);
    const second = encode(buffers);
    expect(second.buffer).toBe(first.buffer);
    expect(Buffer.from(second)).toEqual(Buffer.from(encodeBatch(items)));
  });
});
