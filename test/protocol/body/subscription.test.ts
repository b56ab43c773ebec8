import { expect, test } from "bun:test";
import { parseHeartbeat } from "../../../src/protocol/body/heartbeat.ts";
import {
  buildSubscription,
  ExpressionType,
  matchesTagsCode,
  SUBSCRIPTION_TAGS_MAX,
  subscriptionFromJson,
} from "../../../src/protocol/body/subscription.ts";
import { javaStringHash } from "../../../src/protocol/message/java-hash.ts";
import { RemotingError } from "../../../src/remoting/errors.ts";
import { ResponseCode } from "../../../src/remoting/response-code.ts";

/** Far above the linear cost (about 0.2 s on a loaded 2-core machine); the quadratic one took 41 s. */
const PARSE_MS_MAX = 1000;
const MANY_TAGS = SUBSCRIPTION_TAGS_MAX;

const manyTags = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);

test("a subscription is deduplicated in first-seen order, blanks dropped, each tag with its Java hash", () => {
  const sub = buildSubscription("T", " b || a ||b|| ||Aa||BB||a", 7);
  expect(sub).toEqual({
    topic: "T",
    subString: " b || a ||b|| ||Aa||BB||a",
    tagsSet: ["b", "a", "Aa", "BB"],
    // "Aa" and "BB" share Java's hash 2112: both are listed, as before.
    codeSet: [98, 97, 2112, 2112],
    subVersion: 7,
    expressionType: ExpressionType.TAG,
    classFilterMode: false,
  });
});

test("'*', blank and missing expressions subscribe to everything", () => {
  for (const expr of ["*", " * ", "", "  ", null, undefined]) {
    const sub = buildSubscription("T", expr, 1);
    expect({ subString: sub.subString, tagsSet: sub.tagsSet, codeSet: sub.codeSet }).toEqual({
      subString: "*",
      tagsSet: [],
      codeSet: [],
    });
    expect(matchesTagsCode(sub, 12345)).toBe(true);
  }
});

test(`${MANY_TAGS} tags parse in linear time, deduplicated, with every code`, () => {
  const tags = manyTags(MANY_TAGS);
  const started = performance.now();
  const sub = buildSubscription("T", tags.join("||"), 1);
  const elapsed = performance.now() - started;
  expect(elapsed).toBeLessThan(PARSE_MS_MAX);
  expect(sub.tagsSet).toEqual(tags);
  expect(sub.codeSet).toEqual(tags.map(javaStringHash));
  // Every tag twice: deduplication does real work and keeps the first-seen order.
  const half = manyTags(MANY_TAGS / 2);
  const twice = buildSubscription("T", [...half, ...half].join("||"), 1);
  expect(twice.tagsSet).toEqual(half);
});

test("an expression naming more than SUBSCRIPTION_TAGS_MAX tags is refused at once, as a subscription parse failure", () => {
  const overCap = manyTags(SUBSCRIPTION_TAGS_MAX + 1).join("||");
  // About 16 MiB, a whole frame: refused without splitting it.
  const frameSized = "t||".repeat(5_600_000);
  for (const expression of [overCap, frameSized]) {
    const started = performance.now();
    const error = (() => {
      try {
        buildSubscription("T", expression, 1);
      } catch (e) {
        return e;
      }
    })();
    expect(performance.now() - started).toBeLessThan(PARSE_MS_MAX);
    expect(error).toBeInstanceOf(RemotingError);
    expect({ code: (error as RemotingError).code, remark: (error as RemotingError).remark }).toEqual({
      code: ResponseCode.SUBSCRIPTION_PARSE_FAILED,
      remark: `parse the consumer's subscription failed: more than ${SUBSCRIPTION_TAGS_MAX} tags`,
    });
  }
});

test("the tags-code filter matches exactly the subscribed codes, for small and large code sets", () => {
  for (const n of [3, MANY_TAGS]) {
    const tags = manyTags(n);
    const sub = buildSubscription("T", tags.join("||"), 1);
    expect(matchesTagsCode(sub, javaStringHash(tags[0]!))).toBe(true);
    expect(matchesTagsCode(sub, javaStringHash(tags[n - 1]!))).toBe(true);
    expect(matchesTagsCode(sub, javaStringHash("not-subscribed"))).toBe(false);
    // The consume queue stores a long; its low 32 bits are compared, as Java's (int) cast does.
    expect(matchesTagsCode(sub, javaStringHash(tags[1]!) + 2 ** 32)).toBe(true);
  }
});

test(`a heartbeat whose subscription carries ${MANY_TAGS} tags parses in linear time`, () => {
  const tags = manyTags(MANY_TAGS);
  const body = new TextEncoder().encode(
    JSON.stringify({
      clientID: "c1",
      producerDataSet: [],
      consumerDataSet: [
        {
          groupName: "G",
          consumeType: "CONSUME_PASSIVELY",
          messageModel: "CLUSTERING",
          consumeFromWhere: "CONSUME_FROM_LAST_OFFSET",
          // The client's own tagsSet/codeSet are ignored: the codes are recomputed from subString.
          subscriptionDataSet: [{ topic: "T", subString: tags.join("||"), tagsSet: tags, codeSet: [1] }],
          unitMode: false,
        },
      ],
    }),
  );
  const started = performance.now();
  const hb = parseHeartbeat(body);
  expect(performance.now() - started).toBeLessThan(PARSE_MS_MAX);
  const sub = hb.consumerDataSet[0]!.subscriptionDataSet[0]!;
  expect(sub.tagsSet).toEqual(tags);
  expect(sub.codeSet).toEqual(tags.map(javaStringHash));
});

test("a client subscription is normalised: codes recomputed, text subVersion read, SQL92 kept as given", () => {
  expect(subscriptionFromJson({ topic: "T", subString: "a||b", subVersion: "42", codeSet: [9] })).toEqual({
    topic: "T",
    subString: "a||b",
    tagsSet: ["a", "b"],
    codeSet: [97, 98],
    subVersion: 42,
    expressionType: ExpressionType.TAG,
    classFilterMode: false,
  });
  expect(subscriptionFromJson({ topic: "T", subString: "a > 1", expressionType: "SQL92" })).toEqual({
    topic: "T",
    subString: "a > 1",
    tagsSet: [],
    codeSet: [],
    subVersion: 0,
    expressionType: "SQL92",
    classFilterMode: false,
  });
});
