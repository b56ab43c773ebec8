/**
 * The offset processors against a memory store: QUERY_CONSUMER_OFFSET's no-offset rule (4.9: an empty
 * queue or a queue whose head is still hot answers 0) and the setZeroIfNotFound=false escape.
 */
import { expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBroker } from "../../broker/index.ts";
import { offsetProcessors } from "../../broker/processors/offsets.ts";
import { MemoryMessageStore } from "../../broker/store/memory-store.ts";
import { parseHostAddress } from "../../src/protocol/message/index.ts";
import { RemotingCommand, RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import type { Processor, RequestContext } from "../../src/remoting/processor-registry.ts";
import { brokerConfig, silent } from "../integration/harness.ts";

async function offsets() {
  const dir = await mkdtemp(join(tmpdir(), "rocketbun-offsets-"));
  const store = new MemoryMessageStore();
  const broker = createBroker(await brokerConfig(dir, 0), { log: silent, store });
  await store.open();
  const table = new Map(offsetProcessors(broker.context));
  const call = async (code: number, ext: Record<string, string>) => {
    const p = table.get(code) as Processor;
    const r = (await p(RemotingCommand.request(code, ext), {} as RequestContext))!;
    return { code: r.code, ext: r.extFields };
  };
  const put = (queueId: number) =>
    store.putMessage({
      topic: "T",
      queueId,
      flag: 0,
      body: new Uint8Array([1]),
      properties: new Map(),
      propertiesString: "",
      bornTimestamp: Date.now(),
      bornHost: parseHostAddress("127.0.0.1:1"),
      storeHost: parseHostAddress("127.0.0.1:2"),
      sysFlag: 0,
      reconsumeTimes: 0,
      preparedTransactionOffset: 0,
    });
  return {
    call,
    put,
    ctx: broker.context,
    [Symbol.asyncDispose]: () => rm(dir, { recursive: true, force: true }),
  };
}

test("a group with no committed offset reads from 0 on an empty queue and on a young queue; 22 when asked not to", async () => {
  await using o = await offsets();
  await o.put(1);
  const q = (queueId: number, extra: Record<string, string> = {}) =>
    o.call(RequestCode.QUERY_CONSUMER_OFFSET, {
      consumerGroup: "G",
      topic: "T",
      queueId: String(queueId),
      ...extra,
    });
  const notFound = { code: ResponseCode.QUERY_NOT_FOUND, ext: {} };
  expect({
    empty: await q(0),
    young: await q(1),
    emptyNoZero: await q(0, { setZeroIfNotFound: "false" }),
    youngNoZero: await q(1, { setZeroIfNotFound: "false" }),
  }).toEqual({
    empty: { code: 0, ext: { offset: "0" } },
    young: { code: 0, ext: { offset: "0" } },
    emptyNoZero: notFound,
    youngNoZero: notFound,
  });
  await o.call(RequestCode.UPDATE_CONSUMER_OFFSET, {
    consumerGroup: "G",
    topic: "T",
    queueId: "1",
    commitOffset: "1",
  });
  expect(await q(1, { setZeroIfNotFound: "false" })).toEqual({ code: 0, ext: { offset: "1" } });
});
