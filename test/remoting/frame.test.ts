import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  decodeFrame,
  encodeFrame,
  FrameDecoder,
  FrameError,
  RemotingCommand,
  SerializeType,
} from "../../src/remoting/index.ts";

const fixtures = join(import.meta.dir, "../fixtures/frames");
const hex = (name: string) => Buffer.from(readFileSync(join(fixtures, name), "utf8").trim(), "hex");
/** A frame without its 4-byte length prefix, as FrameDecoder yields it. */
const payload = (frame: Uint8Array) => frame.subarray(4);

const routeRequest = (type: SerializeType) =>
  new RemotingCommand({ code: 105, version: 407, opaque: 1, extFields: { topic: "T" }, serializeType: type });
const noRouteResponse = (type: SerializeType) =>
  new RemotingCommand({
    code: 17,
    version: 407,
    opaque: 1,
    flag: 1,
    remark: "no route",
    serializeType: type,
  });

describe("golden frames from the Java encoder (spec §3.4)", () => {
  test("ROCKETMQ request encodes byte-exact", () => {
    expect(Buffer.from(encodeFrame(routeRequest(SerializeType.ROCKETMQ)))).toEqual(
      hex("get-route-request.rocketmq.hex"),
    );
  });

  test("ROCKETMQ response encodes byte-exact", () => {
    expect(Buffer.from(encodeFrame(noRouteResponse(SerializeType.ROCKETMQ)))).toEqual(
      hex("topic-not-exist-response.rocketmq.hex"),
    );
  });

  test("JSON request encodes to the same bytes as Java (alphabetical keys)", () => {
    expect(Buffer.from(encodeFrame(routeRequest(SerializeType.JSON)))).toEqual(
      hex("get-route-request.json.hex"),
    );
  });

  test("JSON response header parses equal to Java's", () => {
    const ours = encodeFrame(noRouteResponse(SerializeType.JSON));
    const java = hex("topic-not-exist-response.json.hex");
    const header = (f: Uint8Array) => JSON.parse(Buffer.from(f.subarray(8)).toString("utf8"));
    expect(header(ours)).toEqual(header(java));
    expect(ours.length).toBe(java.length);
  });

  for (const [name, expected] of [
    ["get-route-request.json.hex", routeRequest(SerializeType.JSON)],
    ["get-route-request.rocketmq.hex", routeRequest(SerializeType.ROCKETMQ)],
    ["topic-not-exist-response.json.hex", noRouteResponse(SerializeType.JSON)],
    ["topic-not-exist-response.rocketmq.hex", noRouteResponse(SerializeType.ROCKETMQ)],
  ] as const) {
    test(`${name} decodes to the whole expected command`, () => {
      expect(decodeFrame(payload(hex(name)))).toEqual(expected);
    });
  }

  test("a response with a body keeps the body after the header (spec §3.4 C)", () => {
    const cmd = RemotingCommand.response(0, null, null, new TextEncoder().encode("{}"));
    cmd.opaque = 2;
    const frame = encodeFrame(cmd);
    const view = new DataView(frame.buffer);
    expect(view.getInt32(0)).toBe(frame.length - 4);
    expect(Buffer.from(frame.subarray(frame.length - 2)).toString()).toBe("{}");
    expect(decodeFrame(payload(frame)).body).toEqual(new TextEncoder().encode("{}"));
  });
});

describe("what real clients send", () => {
  test("C++ header: trailing newline, numeric extFields, empty remark", () => {
    const text =
      '{"code":105,"extFields":{"topic":"T","d":4,"OnsChannel":"ALIYUN"},"flag":0,"language":"CPP","opaque":7,"remark":"","version":333}\n';
    const header = new TextEncoder().encode(text);
    const frame = new Uint8Array(4 + header.length);
    new DataView(frame.buffer).setInt32(0, header.length);
    frame.set(header, 4);
    expect(decodeFrame(frame)).toEqual(
      new RemotingCommand({
        code: 105,
        language: "CPP",
        version: 333,
        opaque: 7,
        extFields: { topic: "T", d: "4", OnsChannel: "ALIYUN" },
      }),
    );
  });

  test("numeric language, booleans, missing flag/version/opaque, unknown language", () => {
    const text = '{"code":34,"language":9,"extFields":{"unitMode":false}}';
    const header = new TextEncoder().encode(text);
    const frame = new Uint8Array(4 + header.length);
    new DataView(frame.buffer).setInt32(0, header.length);
    frame.set(header, 4);
    expect(decodeFrame(frame)).toEqual(
      new RemotingCommand({ code: 34, language: "GO", extFields: { unitMode: "false" } }),
    );
    const unknown = new TextEncoder().encode('{"code":1,"language":"COBOL"}');
    const f2 = new Uint8Array(4 + unknown.length);
    new DataView(f2.buffer).setInt32(0, unknown.length);
    f2.set(unknown, 4);
    expect(decodeFrame(f2).language).toBe("UNKNOWN");
  });

  test("a POP code does not fit ROCKETMQ's int16 and goes out as JSON", () => {
    const cmd = new RemotingCommand({ code: 200050, serializeType: SerializeType.ROCKETMQ });
    const frame = encodeFrame(cmd);
    expect(new DataView(frame.buffer).getUint32(4) >>> 24).toBe(SerializeType.JSON);
    expect(decodeFrame(payload(frame)).code).toBe(200050);
  });
});

describe("FrameDecoder", () => {
  const frames = [
    encodeFrame(routeRequest(SerializeType.JSON)),
    encodeFrame(new RemotingCommand({ code: 11, opaque: 9, body: new Uint8Array([1, 2, 3, 4, 5]) })),
  ];
  const both = Buffer.concat(frames);

  test("bytes fed one at a time yield the same frames", () => {
    const decoder = new FrameDecoder();
    const out: Uint8Array[] = [];
    for (const byte of both) out.push(...decoder.push(Uint8Array.of(byte)));
    expect(out.map((f) => Buffer.from(f))).toEqual(frames.map((f) => Buffer.from(payload(f))));
    expect(decoder.buffered).toBe(0);
  });

  test("two coalesced frames come out whole", () => {
    const out = new FrameDecoder().push(both);
    expect(out.map((f) => Buffer.from(f))).toEqual(frames.map((f) => Buffer.from(payload(f))));
  });

  test("two frames split at every offset come out whole", () => {
    for (let cut = 0; cut <= both.length; cut++) {
      const decoder = new FrameDecoder();
      const out = [...decoder.push(both.subarray(0, cut)), ...decoder.push(both.subarray(cut))];
      expect(out.map((f) => Buffer.from(f))).toEqual(frames.map((f) => Buffer.from(payload(f))));
    }
  });

  test("an incomplete frame is held, not consumed", () => {
    const decoder = new FrameDecoder();
    expect(decoder.push(frames[0]!.subarray(0, 10))).toEqual([]);
    expect(decoder.buffered).toBe(10);
  });

  test("whole frames before a bad length in the same chunk come out; then the decoder takes nothing more", () => {
    const badLength = Uint8Array.of(0xff, 0xff, 0xff, 0xfb, 1, 2, 3);
    const decoder = new FrameDecoder();
    const out = decoder.push(Buffer.concat([both, badLength]));
    expect({
      frames: out.map((f) => Buffer.from(f)),
      failure: decoder.failure?.message,
      buffered: decoder.buffered,
      after: decoder.push(frames[0]!),
    }).toEqual({
      frames: frames.map((f) => Buffer.from(payload(f))),
      failure: "bad frame length -5",
      buffered: 0,
      after: [],
    });
  });

  test("a frame over the limit is refused before it is buffered", () => {
    const decoder = new FrameDecoder(1024);
    const head = new Uint8Array(8);
    new DataView(head.buffer).setInt32(0, 1021);
    expect(decoder.push(head)).toEqual([]);
    expect(decoder.failure).toBeInstanceOf(FrameError);
    expect(decoder.buffered).toBe(0);
    const atLimit = new Uint8Array(8);
    new DataView(atLimit.buffer).setInt32(0, 1020);
    expect(new FrameDecoder(1024).push(atLimit)).toEqual([]);
  });

  test("Java's default limit: totalLength 16777212 is accepted, 16777213 refused", () => {
    const ok = new Uint8Array(4);
    new DataView(ok.buffer).setInt32(0, 16777212);
    expect(new FrameDecoder().push(ok)).toEqual([]);
    const tooBig = new Uint8Array(4);
    new DataView(tooBig.buffer).setInt32(0, 16777213);
    const decoder = new FrameDecoder();
    decoder.push(tooBig);
    expect(decoder.failure?.message).toBe("frame of 16777217 bytes exceeds the 16777216-byte limit");
  });

  test("negative and tiny lengths are refused", () => {
    const failureOf = (total: number) => {
      const bad = new Uint8Array(4);
      new DataView(bad.buffer).setInt32(0, total);
      const decoder = new FrameDecoder();
      decoder.push(bad);
      return decoder.failure?.message;
    };
    expect([failureOf(-5), failureOf(2)]).toEqual(["bad frame length -5", "bad frame length 2"]);
  });

  test("a header length beyond the frame is a decode error", () => {
    const frame = new Uint8Array(8);
    new DataView(frame.buffer).setInt32(0, 100);
    expect(() => decodeFrame(frame)).toThrow("bad header length");
  });

  test("an unknown serialize type is a decode error", () => {
    const frame = new Uint8Array(6);
    new DataView(frame.buffer).setInt32(0, (2 << 24) | 2);
    expect(() => decodeFrame(frame)).toThrow("unknown serialize type 2");
  });
});
