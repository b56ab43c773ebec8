/**
 * SQL92 property filters on the wire (spec pop-timer-filter §C.1, §C.2), raw frames against a
 * real broker in both serializations: PULL_MESSAGE with the expression in its header or
 * registered by HEART_BEAT, CHECK_CLIENT_CONFIG (46), POP_MESSAGE with `expType=SQL92`, the
 * refusals with the broker's property filter off, and the registry surviving a restart.
 */
import { describe, expect, test } from "bun:test";
import { consumerFiltersOf } from "../../broker/filter/message-filters.ts";
import { PopMessageRequestHeader } from "../../src/protocol/headers/pop.ts";
import { PullSysFlag } from "../../src/protocol/headers/pull.ts";
import { RequestCode, ResponseCode, type SerializeType } from "../../src/remoting/index.ts";
import {
  type BrokerHarness,
  createTopic,
  decodeRecords,
  request,
  SERIALIZE_TYPES,
  sendRequest,
  startBroker,
} from "./harness.ts";

const TOPIC = "TSql";
const GROUP = "GSql";
const ON = { enablePropertyFilter: "true" };

/** Ten messages: a=0..7 (tags alternate TagA/TagB), one a=x, one without a. */
const MESSAGES: { tags: string; properties: Record<string, string> }[] = [
  ...Array.from({ length: 8 }, (_, i) => ({
    tags: i % 2 === 0 ? "TagA" : "TagB",
    properties: { a: String(i) },
  })),
  { tags: "TagA", properties: { a: "x" } },
  { tags: "TagA", properties: { b: "1" } },
];

async function fill(h: BrokerHarness, st: SerializeType): Promise<void> {
  const c = h.client();
  await createTopic(c, h.addr, TOPIC, 1);
  for (const [i, m] of MESSAGES.entries()) {
    const r = await c.invoke(h.addr, sendRequest({ topic: TOPIC, body: `m${i}`, queueId: 0, ...m }, st));
    expect(r.code).toBe(ResponseCode.SUCCESS);
  }
}

interface SqlPull {
  expression?: string;
  expressionType?: string;
  /** Carry the subscription (PullSysFlag.SUBSCRIPTION); else the broker uses its registry. */
  inHeader?: boolean;
  subVersion?: number;
  offset?: number;
}

function sqlPull(p: SqlPull, st: SerializeType) {
  return request(
    RequestCode.PULL_MESSAGE,
    {
      consumerGroup: GROUP,
      topic: TOPIC,
      queueId: "0",
      queueOffset: String(p.offset ?? 0),
      maxMsgNums: "32",
      sysFlag: String(p.inHeader === false ? 0 : PullSysFlag.SUBSCRIPTION),
      commitOffset: "0",
      suspendTimeoutMillis: "0",
      subscription: p.expression ?? "",
      subVersion: String(p.subVersion ?? 0),
      expressionType: p.expressionType ?? "SQL92",
    },
    null,
    st,
  );
}

function heartbeat(expression: string, subVersion: number, st: SerializeType) {
  const body = {
    clientID: "127.0.0.1@sql",
    consumerDataSet: [
      {
        groupName: GROUP,
        consumeType: "CONSUME_PASSIVELY",
        messageModel: "CLUSTERING",
        consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
        subscriptionDataSet: [
          {
            topic: TOPIC,
            subString: expression,
            tagsSet: [],
            codeSet: [],
            subVersion,
            classFilterMode: false,
            expressionType: "SQL92",
          },
        ],
        unitMode: false,
      },
    ],
    producerDataSet: [],
  };
  return request(RequestCode.HEART_BEAT, {}, new TextEncoder().encode(JSON.stringify(body)), st);
}

function checkClientConfig(expression: string, expressionType: string, st: SerializeType) {
  const body = {
    clientId: "127.0.0.1@sql",
    group: GROUP,
    namespace: null,
    subscriptionData: {
      topic: TOPIC,
      subString: expression,
      expressionType,
      subVersion: 1,
      tagsSet: [],
      codeSet: [],
    },
  };
  return request(RequestCode.CHECK_CLIENT_CONFIG, {}, new TextEncoder().encode(JSON.stringify(body)), st);
}

function bodies(body: Uint8Array | null): string[] {
  return decodeRecords(body).map((r) => new TextDecoder().decode(r.body));
}

describe.each(SERIALIZE_TYPES)("%s headers", (_name, st) => {
  test("a pull carrying an SQL92 expression returns exactly the matching messages and skips the others", async () => {
    await using h = await startBroker(ON);
    await fill(h, st);
    const c = h.client();
    const between = await c.invoke(h.addr, sqlPull({ expression: "a between 0 and 3" }, st));
    expect({
      code: between.code,
      next: between.extFields?.nextBeginOffset,
      bodies: bodies(between.body),
    }).toEqual({
      code: ResponseCode.SUCCESS,
      next: "10",
      bodies: ["m0", "m1", "m2", "m3"],
    });
    const tagged = await c.invoke(h.addr, sqlPull({ expression: "TAGS = 'TagA' AND a >= 5" }, st));
    expect(bodies(tagged.body)).toEqual(["m6"]);
    const none = await c.invoke(h.addr, sqlPull({ expression: "a > 100" }, st));
    expect({ code: none.code, next: none.extFields?.nextBeginOffset }).toEqual({
      code: ResponseCode.PULL_RETRY_IMMEDIATELY,
      next: "10",
    });
  });

  test("a pull whose SQL92 expression does not compile, or is empty, is refused SUBSCRIPTION_PARSE_FAILED", async () => {
    await using h = await startBroker(ON);
    await fill(h, st);
    const c = h.client();
    const bad = await c.invoke(h.addr, sqlPull({ expression: "a = 'x' AND" }, st));
    expect(bad.code).toBe(ResponseCode.SUBSCRIPTION_PARSE_FAILED);
    expect(bad.remark).toContain("at line 1, column 11");
    const empty = await c.invoke(h.addr, sqlPull({ expression: "" }, st));
    expect({ code: empty.code, remark: empty.remark }).toEqual({
      code: ResponseCode.SUBSCRIPTION_PARSE_FAILED,
      remark: "parse the consumer's subscription failed",
    });
    const unknownType = await c.invoke(h.addr, sqlPull({ expression: "a = 1", expressionType: "XPATH" }, st));
    expect(unknownType.code).toBe(ResponseCode.SUBSCRIPTION_PARSE_FAILED);
  });

  test("CHECK_CLIENT_CONFIG accepts TAG and a valid expression, and refuses a wrong one with its position", async () => {
    await using h = await startBroker(ON);
    const c = h.client();
    const answers = [];
    for (const [expression, type] of [
      ["*", "TAG"],
      ["a between 0 and 3", "SQL92"],
      ["a = 'x'\n  AND b == 1", "SQL92"],
    ] as const) {
      const r = await c.invoke(h.addr, checkClientConfig(expression, type, st));
      answers.push({ code: r.code, remark: r.remark?.split(". Was expecting")[0] ?? null });
    }
    expect(answers).toEqual([
      { code: ResponseCode.SUCCESS, remark: null },
      { code: ResponseCode.SUCCESS, remark: null },
      {
        code: ResponseCode.SUBSCRIPTION_PARSE_FAILED,
        remark: 'org.apache.rocketmq.filter.parser.ParseException: Encountered "=" at line 2, column 10',
      },
    ]);
  });

  test("with the property filter off, SQL92 pulls and CHECK_CLIENT_CONFIG are refused; POP is not gated", async () => {
    await using h = await startBroker();
    await fill(h, st);
    const c = h.client();
    const check = await c.invoke(h.addr, checkClientConfig("a = 1", "SQL92", st));
    const pull = await c.invoke(h.addr, sqlPull({ expression: "a = 1" }, st));
    const remark = "The broker does not support consumer to filter message by SQL92";
    expect([
      { code: check.code, remark: check.remark },
      { code: pull.code, remark: pull.remark },
    ]).toEqual([
      { code: ResponseCode.SYSTEM_ERROR, remark },
      { code: ResponseCode.SYSTEM_ERROR, remark },
    ]);
    const pop = await c.invoke(h.addr, popSql("a between 2 and 4", st));
    expect({ code: pop.code, bodies: bodies(pop.body) }).toEqual({
      code: ResponseCode.SUCCESS,
      bodies: ["m2", "m3", "m4"],
    });
    const badPop = await c.invoke(h.addr, popSql("a between", st));
    expect(badPop.code).toBe(ResponseCode.SUBSCRIPTION_PARSE_FAILED);
  });

  test("heartbeat subscriptions filter pulls without a header expression; 24, 25 and 27 as the spec says", async () => {
    await using h = await startBroker(ON);
    await fill(h, st);
    const c = h.client();
    const unknown = await c.invoke(h.addr, sqlPull({ inHeader: false }, st));
    expect(unknown.code).toBe(ResponseCode.SUBSCRIPTION_NOT_EXIST);
    expect((await c.invoke(h.addr, heartbeat("a >= 6", 100, st))).code).toBe(ResponseCode.SUCCESS);
    const pulled = await c.invoke(h.addr, sqlPull({ inHeader: false, subVersion: 100 }, st));
    expect(bodies(pulled.body)).toEqual(["m6", "m7"]);
    const newer = await c.invoke(h.addr, sqlPull({ inHeader: false, subVersion: 101 }, st));
    expect(newer.code).toBe(ResponseCode.SUBSCRIPTION_NOT_LATEST);
    // A newer expression that does not compile removes the filter: pulls answer 27.
    expect((await c.invoke(h.addr, heartbeat("a >=", 200, st))).code).toBe(ResponseCode.SUCCESS);
    const gone = await c.invoke(h.addr, sqlPull({ inHeader: false, subVersion: 200 }, st));
    expect({ code: gone.code, remark: gone.remark }).toEqual({
      code: ResponseCode.FILTER_DATA_NOT_EXIST,
      remark: "The broker's consumer filter data is not exist!Your expression may be wrong!",
    });
  });

  test("hostile expressions are refused quickly and the broker keeps serving", async () => {
    await using h = await startBroker(ON);
    await fill(h, st);
    const c = h.client();
    const hostile = [
      `${"(".repeat(50_000)}a = 1${")".repeat(50_000)}`,
      `${"NOT ".repeat(20_000)}a`,
      `a${" = TRUE".repeat(8_000)}`,
      `a = '${"x".repeat(70_000)}'`,
      `a IN (${Array.from({ length: 5000 }, (_, i) => `'${i}'`).join(",")}`,
      "\u0000\uffff' --",
    ];
    const codes = [];
    for (const expression of hostile) {
      codes.push((await c.invoke(h.addr, sqlPull({ expression }, st))).code);
      codes.push((await c.invoke(h.addr, checkClientConfig(expression, "SQL92", st))).code);
    }
    expect(codes).toEqual(hostile.flatMap(() => [23, 23]));
    // A long but legal IN list and AND chain are served.
    const inList = `a IN (${Array.from({ length: 5000 }, (_, i) => `'${i}'`).join(",")})`;
    expect(bodies((await c.invoke(h.addr, sqlPull({ expression: inList }, st))).body)).toHaveLength(8);
    const chain = Array.from({ length: 2000 }, (_, i) => `a <> ${i + 100}`).join(" AND ");
    expect(bodies((await c.invoke(h.addr, sqlPull({ expression: chain }, st))).body)).toHaveLength(8);
  });

  test("the filter registry survives a broker restart (config/consumerFilter.json)", async () => {
    await using h = await startBroker(ON);
    await fill(h, st);
    const c = h.client();
    await c.invoke(h.addr, heartbeat("TAGS = 'TagB' AND a < 5", 300, st));
    await h.restart();
    const kept = consumerFiltersOf(h.broker.context).get(TOPIC, GROUP);
    expect(kept && { expression: kept.expression, clientVersion: kept.clientVersion }).toEqual({
      expression: "TAGS = 'TagB' AND a < 5",
      clientVersion: 300,
    });
    // The consumer's next heartbeat carries the same version; the kept filter serves its pulls.
    const c2 = h.client();
    await c2.invoke(h.addr, heartbeat("TAGS = 'TagB' AND a < 5", 300, st));
    const pulled = await c2.invoke(h.addr, sqlPull({ inHeader: false, subVersion: 300 }, st));
    expect(bodies(pulled.body)).toEqual(["m1", "m3"]);
  });
});

function popSql(exp: string, st: SerializeType) {
  return request(
    RequestCode.POP_MESSAGE,
    PopMessageRequestHeader.encode({
      consumerGroup: "GPopSql",
      topic: TOPIC,
      queueId: -1,
      maxMsgNums: 32,
      invisibleTime: 60_000,
      pollTime: 0,
      bornTime: Date.now(),
      initMode: 0,
      expType: "SQL92",
      exp,
    }),
    null,
    st,
  );
}
