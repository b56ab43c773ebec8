/**
 * Item 4b: JSON headers built to stall the event loop. Reading a header must stay linear in its
 * size and bounded: a deeply nested extFields value used to be stringified back until the stack
 * overflowed (0.74 s per frame); a 12 MB header of 900k keys took over a second to parse.
 */
import { expect, test } from "bun:test";
import { encodeFrame, HEADER_BYTES_MAX, RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { request } from "../support/frames.ts";
import { jsonFrame } from "./abusers.ts";
import { startBroker } from "./harness.ts";
import { rawClient } from "./raw-client.ts";

/** Longest the broker may take to refuse one hostile frame (before the fix: 0.74 s and 1.2-4.3 s). */
const REFUSAL_MS_MAX = 400;
const NESTING = 100_000;
const KEYS = 900_000;

/** The time from the last byte written to the server closing the connection. */
async function msUntilClosed(addr: string, frame: Uint8Array): Promise<number> {
  await using raw = await rawClient(addr);
  await raw.write(frame);
  const start = performance.now();
  await raw.closed;
  return performance.now() - start;
}

test("an extFields value that is an object or array is refused with SYSTEM_ERROR; the connection goes on", async () => {
  await using h = await startBroker();
  await using raw = await rawClient(h.addr);
  const info = (opaque: number, ext: string) =>
    jsonFrame(
      `{"code":${RequestCode.GET_BROKER_RUNTIME_INFO},"extFields":${ext},"flag":0,"opaque":${opaque}}`,
    );
  await raw.write(info(1, '{"a":[1,2]}'));
  await raw.write(info(2, '{"b":{"c":"d"},"n":7}'));
  await raw.write(info(3, '"not an object"'));
  await raw.write(info(4, '{"n":7,"t":true,"s":"x","z":null}'));
  const answers = await raw.receive(4);
  expect(answers.map((r) => ({ opaque: r.opaque, code: r.code, remark: r.remark }))).toEqual([
    {
      opaque: 1,
      code: ResponseCode.SYSTEM_ERROR,
      remark: "bad JSON header: extFields.a is an array; values must be strings, numbers or booleans",
    },
    {
      opaque: 2,
      code: ResponseCode.SYSTEM_ERROR,
      remark: "bad JSON header: extFields.b is an object; values must be strings, numbers or booleans",
    },
    { opaque: 3, code: ResponseCode.SYSTEM_ERROR, remark: "bad JSON header: extFields is not an object" },
    { opaque: 4, code: ResponseCode.SUCCESS, remark: null },
  ]);
  expect(raw.isClosed).toBe(false);
});

test(`an extFields value nested ${NESTING} deep is refused at once, and other clients are served`, async () => {
  await using h = await startBroker();
  const deep = `{"code":${RequestCode.GET_BROKER_RUNTIME_INFO},"extFields":{"a":${"[".repeat(NESTING)}${"]".repeat(NESTING)}},"opaque":1}`;
  expect(deep.length).toBeLessThan(HEADER_BYTES_MAX);
  const ms = await msUntilClosed(h.addr, jsonFrame(deep));
  const ok = await h.client().invoke(h.addr, request(RequestCode.GET_BROKER_RUNTIME_INFO));
  expect({ slow: ms > REFUSAL_MS_MAX, code: ok.code }).toEqual({ slow: false, code: ResponseCode.SUCCESS });
});

test(`a header of ${KEYS} keys (over HEADER_BYTES_MAX) is refused before it is parsed`, async () => {
  await using h = await startBroker();
  const keys = Array.from({ length: KEYS }, (_, i) => `"k${i}":"v"`).join(",");
  const huge = jsonFrame(`{"code":${RequestCode.GET_BROKER_RUNTIME_INFO},"extFields":{${keys}},"opaque":1}`);
  const ms = await msUntilClosed(h.addr, huge);
  const ok = await h.client().invoke(h.addr, request(RequestCode.GET_BROKER_RUNTIME_INFO));
  expect({ slow: ms > REFUSAL_MS_MAX, code: ok.code }).toEqual({ slow: false, code: ResponseCode.SUCCESS });
});

test("a header just under HEADER_BYTES_MAX with thousands of keys is still served", async () => {
  await using h = await startBroker();
  const ext: Record<string, string> = {};
  for (let i = 0; i < 20_000; i++) ext[`k${i}`] = "v";
  const req = request(RequestCode.GET_BROKER_RUNTIME_INFO, ext);
  req.opaque = 9;
  const frame = encodeFrame(req);
  expect(frame.length).toBeLessThan(HEADER_BYTES_MAX);
  await using raw = await rawClient(h.addr);
  await raw.write(frame);
  const [answer] = await raw.receive(1);
  expect({ opaque: answer!.opaque, code: answer!.code }).toEqual({ opaque: 9, code: ResponseCode.SUCCESS });
});
