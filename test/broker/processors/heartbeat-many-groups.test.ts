import { expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { RequestCode, ResponseCode } from "../../../src/remoting/index.ts";
import { request, startBroker } from "../../integration/harness.ts";

const GROUPS = 2000;
/** Far above the linear cost (well under a second); writing topics.json once per group took 33 s. */
const HEARTBEAT_MS_MAX = 5000;

function heartbeatOfGroups(n: number): Uint8Array {
  const consumerDataSet = Array.from({ length: n }, (_, i) => ({
    groupName: `G_${i}`,
    consumeType: "CONSUME_PASSIVELY",
    messageModel: "CLUSTERING",
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    subscriptionDataSet: [{ topic: "T", subString: "a||b", subVersion: 1, expressionType: "TAG" }],
    unitMode: false,
  }));
  return new TextEncoder().encode(JSON.stringify({ clientID: "c1", consumerDataSet, producerDataSet: [] }));
}

test(`a heartbeat naming ${GROUPS} new groups creates their retry topics with one write of topics.json`, async () => {
  await using h = await startBroker();
  const c = h.client();
  const started = performance.now();
  const reply = await c.invoke(h.addr, request(RequestCode.HEART_BEAT, null, heartbeatOfGroups(GROUPS)));
  const elapsed = performance.now() - started;
  expect(reply.code).toBe(ResponseCode.SUCCESS);
  expect(elapsed).toBeLessThan(HEARTBEAT_MS_MAX);
  const topics = h.broker.context.topics;
  for (const i of [0, GROUPS - 1]) {
    expect(topics.get(`%RETRY%G_${i}`)).toMatchObject({ readQueueNums: 1, writeQueueNums: 1, perm: 6 });
  }
  const saved = JSON.parse(await readFile(join(h.dir, "store", "config", "topics.json"), "utf8"));
  expect(Object.keys(saved.topicConfigTable).filter((t) => t.startsWith("%RETRY%G_")).length).toBe(GROUPS);
  // The broker still answers everyone else.
  const other = await h.client().invoke(h.addr, request(RequestCode.GET_BROKER_RUNTIME_INFO, null, null));
  expect(other.code).toBe(ResponseCode.SUCCESS);
});
