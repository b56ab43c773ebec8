/**
 * The zod-free reads of WebSocket frame heads, ack / nack / extend and credit frames (gateway/ws/
 * plain-frames.ts) never accept what the zod schema refuses, and give exactly zod's parse for what
 * they take; the plain shapes a subscriber sends are taken by them.
 */
import { expect, test } from "bun:test";
import fc from "fast-check";
import { creditFrame, FrameHead, SettleFrame } from "../../gateway/ws/frames.ts";
import { plainCreditFrame, plainFrameHead, plainSettleFrame } from "../../gateway/ws/plain-frames.ts";

const handle = fc.oneof(
  fc.string({ minLength: 0, maxLength: 5 }),
  fc.constant("h".repeat(2048)),
  fc.constant("h".repeat(2049)),
);
const id = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.constant("i".repeat(128)),
  fc.constant("i".repeat(129)),
  fc.integer(),
  fc.double(),
  fc.constant(2 ** 53),
  fc.constant(null),
  fc.boolean(),
);
const ms = fc.oneof(
  fc.integer({ min: -10, max: 2000 }),
  fc.constant(12 * 3600 * 1000),
  fc.constant(12 * 3600 * 1000 + 1),
  fc.double(),
  fc.constant("5"),
);
/** Frames near the valid shapes: each field present or not, valid or not, sometimes an extra one. */
const frame = fc.record(
  {
    type: fc.oneof(
      fc.constantFrom("ack", "nack", "extend", "publish", "ACK"),
      fc.constant("t".repeat(65)),
      fc.integer(),
    ),
    id,
    receiptHandle: handle,
    receiptHandles: fc.oneof(fc.array(handle, { minLength: 0, maxLength: 66 }), handle),
    delayMs: ms,
    invisibleMs: ms,
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);
const values = fc.oneof(frame, fc.anything());

/** Over `values`, whatever `plain` takes zod takes too, and parses to the same value. */
function agreesWithZod(
  values: fc.Arbitrary<unknown>,
  plain: (v: unknown) => unknown,
  schema: { safeParse(v: unknown): { success: boolean; data?: unknown } },
): void {
  fc.assert(
    fc.property(values, (v) => {
      const taken = plain(v);
      const zod = schema.safeParse(v);
      if (taken !== null) expect(zod.success ? zod.data : "refused").toEqual(taken);
    }),
    { numRuns: 5000 },
  );
}

test("a settle frame the plain check takes is exactly zod's parse; one zod refuses it never takes", () => {
  agreesWithZod(values, plainSettleFrame, SettleFrame);
});

test("a frame head the plain check takes is exactly zod's parse; one zod refuses it never takes", () => {
  agreesWithZod(values, plainFrameHead, FrameHead);
});

const CREDIT_MAX = 256;
const credits = fc.record(
  {
    type: fc.oneof(fc.constantFrom("credit", "ack"), fc.integer()),
    id,
    subscription: fc.oneof(
      fc.string({ maxLength: 3 }),
      fc.constant("s".repeat(64)),
      fc.constant("s".repeat(65)),
      fc.integer(),
    ),
    credit: fc.oneof(fc.integer({ min: -2, max: CREDIT_MAX + 2 }), fc.double(), fc.constant("4")),
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);

test("a credit frame the plain check takes is exactly zod's parse; one zod refuses it never takes", () => {
  agreesWithZod(
    fc.oneof(credits, fc.anything()),
    (v) => plainCreditFrame(v, CREDIT_MAX),
    creditFrame(CREDIT_MAX),
  );
});

test("the frames a subscriber sends are taken without zod", () => {
  expect(plainCreditFrame({ type: "credit", subscription: "s1", credit: 64 }, CREDIT_MAX)).toEqual({
    type: "credit",
    subscription: "s1",
    credit: 64,
  });
  const handles = Array.from({ length: 64 }, (_, i) => `v1.${i}`);
  const ack = { type: "ack" as const, id: 7, receiptHandles: handles };
  expect(plainSettleFrame(ack)).toEqual({ ...ack, delayMs: 0, invisibleMs: 60_000 });
  const nack = { type: "nack" as const, id: "n1", receiptHandle: "v1.x", delayMs: 5000 };
  expect(plainSettleFrame(nack)).toEqual({ ...nack, invisibleMs: 60_000 });
  expect(plainSettleFrame({ type: "extend", receiptHandle: "v1.x", invisibleMs: 30_000 })).toEqual({
    type: "extend",
    receiptHandle: "v1.x",
    delayMs: 0,
    invisibleMs: 30_000,
  });
  expect(plainFrameHead({ type: "credit", subscription: "s1", credit: 64 })).toEqual({ type: "credit" });
  expect(plainFrameHead({ type: "ack", id: "a" })).toEqual({ type: "ack", id: "a" });
});
