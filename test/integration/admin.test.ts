/**
 * Admin, offset, query and client-management requests as raw frames against a real broker, in both
 * serializations: each test is a transcript of requests whose answers are compared whole.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { DAY_WINDOW, HOUR_WINDOW, MINUTE_WINDOW } from "../../broker/services/stats-items.ts";
import { diskUsedPercent, ratioText } from "../../broker/store/disk-usage.ts";
import {
  RequestCode as R,
  type RemotingClient,
  RemotingCommand,
  ResponseCode,
  type SerializeType,
} from "../../src/remoting/index.ts";
import {
  createTopic,
  decodeRecords,
  heartbeatBody,
  json,
  pullRequest,
  queueKeyed,
  request,
  SERIALIZE_TYPES,
  sendRequest,
  startBroker,
  summary,
} from "./harness.ts";

const utf8 = new TextEncoder();

/** Sends `n` messages to queue 1 of `topic`, each in a later millisecond than the one before. */
async function sendDistinctMillis(
  c: RemotingClient,
  addr: string,
  topic: string,
  n: number,
  st: SerializeType,
) {
  for (let i = 0; i < n; i++) {
    const before = Date.now();
    while (Date.now() === before) await Bun.sleep(0);
    const r = await c.invoke(addr, sendRequest({ topic, body: `a${i}`, keys: `key-${i}`, queueId: 1 }, st));
    if (r.code !== 0) throw new Error(`send: ${r.code} ${r.remark}`);
  }
  const pulled = await c.invoke(addr, pullRequest({ group: "PEEK", topic, queueId: 1, offset: 0 }, st));
  return decodeRecords(pulled.body);
}

const answer = (r: { code: number; remark: string | null }) => ({ code: r.code, remark: r.remark });

describe.each(SERIALIZE_TYPES)("%s headers", (_name, st) => {
  const req = (code: number, ext: Record<string, string> | null = null, body: Uint8Array | null = null) =>
    request(code, ext, body, st);

  test("topic create, list, stats and delete", async () => {
    await using h = await startBroker();
    const c = h.client();
    const created = await c.invoke(
      h.addr,
      req(R.UPDATE_AND_CREATE_TOPIC, {
        topic: "TAdm",
        defaultTopic: "TBW102",
        readQueueNums: "2",
        writeQueueNums: "2",
        perm: "6",
        topicFilterType: "SINGLE_TAG",
        topicSysFlag: "0",
        order: "false",
      }),
    );
    expect({ ...answer(created), serializeType: created.serializeType }).toEqual({
      code: 0,
      remark: null,
      serializeType: st,
    });
    const all = json((await c.invoke(h.addr, req(R.GET_ALL_TOPIC_CONFIG))).body) as {
      topicConfigTable: Record<string, unknown>;
    };
    expect(all.topicConfigTable.TAdm).toEqual({
      topicName: "TAdm",
      readQueueNums: 2,
      writeQueueNums: 2,
      perm: 6,
      topicFilterType: "SINGLE_TAG",
      topicSysFlag: 0,
      order: false,
      attributes: {},
    });
    const records = await sendDistinctMillis(c, h.addr, "TAdm", 3, st);
    const stats = await c.invoke(h.addr, req(R.GET_TOPIC_STATS_INFO, { topic: "TAdm" }));
    expect(queueKeyed(stats.body)).toEqual({
      offsetTable: {
        "TAdm/0": { lastUpdateTimestamp: 0, maxOffset: 0, minOffset: 0 },
        "TAdm/1": { lastUpdateTimestamp: records[2]!.storeTimestamp, maxOffset: 3, minOffset: 0 },
      },
    });
    expect(answer(await c.invoke(h.addr, req(R.DELETE_TOPIC_IN_BROKER, { topic: "TAdm" })))).toEqual({
      code: 0,
      remark: null,
    });
    const after = json((await c.invoke(h.addr, req(R.GET_ALL_TOPIC_CONFIG))).body) as {
      topicConfigTable: Record<string, unknown>;
    };
    expect({
      listed: "TAdm" in after.topicConfigTable,
      stats: answer(await c.invoke(h.addr, req(R.GET_TOPIC_STATS_INFO, { topic: "TAdm" }))),
      maxOffset: (await c.invoke(h.addr, req(R.GET_MAX_OFFSET, { topic: "TAdm", queueId: "1" }))).extFields,
    }).toEqual({
      listed: false,
      stats: { code: ResponseCode.TOPIC_NOT_EXIST, remark: "topic[TAdm] not exist" },
      maxOffset: { offset: "0" },
    });
  });

  test("consumer offsets: update, query, consume stats, dump, reset by time", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TOff", 2);
    const records = await sendDistinctMillis(c, h.addr, "TOff", 3, st);
    const q = { consumerGroup: "G", topic: "TOff", queueId: "1" };
    const notFound = await c.invoke(
      h.addr,
      req(R.QUERY_CONSUMER_OFFSET, { ...q, setZeroIfNotFound: "false" }),
    );
    expect(answer(notFound)).toEqual({
      code: ResponseCode.QUERY_NOT_FOUND,
      remark: "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first",
    });
    await c.invoke(h.addr, req(R.UPDATE_CONSUMER_OFFSET, { ...q, commitOffset: "2" }));
    const queried = await c.invoke(h.addr, req(R.QUERY_CONSUMER_OFFSET, q));
    expect({ ...answer(queried), ext: queried.extFields }).toEqual({
      code: 0,
      remark: null,
      ext: { offset: "2" },
    });
    const stats = await c.invoke(h.addr, req(R.GET_CONSUME_STATS, { consumerGroup: "G", topic: "TOff" }));
    expect(queueKeyed(stats.body)).toEqual({
      consumeTps: 0,
      offsetTable: {
        "TOff/0": { brokerOffset: 0, consumerOffset: 0, lastTimestamp: 0 },
        "TOff/1": { brokerOffset: 3, consumerOffset: 2, lastTimestamp: records[1]!.storeTimestamp },
      },
    });
    expect(json((await c.invoke(h.addr, req(R.GET_ALL_CONSUMER_OFFSET))).body)).toEqual({
      offsetTable: { "TOff@G": { "1": 2 } },
    });
    // Every subscription group at once (mqadmin brokerConsumeStats): Java's ConsumeStatsList, its
    // ConsumeStats keyed by queue objects as fastjson writes them; G's lag is 1.
    const group = utf8.encode(JSON.stringify({ groupName: "G" }));
    await c.invoke(h.addr, req(R.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, null, group));
    const all = await c.invoke(h.addr, req(R.GET_BROKER_CONSUME_STATS, { isOrder: "false" }));
    const q0 = '{"brokerName":"broker-it","queueId":0,"topic":"TOff"}';
    const q1 = '{"brokerName":"broker-it","queueId":1,"topic":"TOff"}';
    const gStats = `{"G":[{"consumeTps":0,"offsetTable":{${q0}:{"brokerOffset":0,"consumerOffset":0,"lastTimestamp":0},${q1}:{"brokerOffset":3,"consumerOffset":2,"lastTimestamp":${records[1]!.storeTimestamp}}}}]}`;
    const text = new TextDecoder().decode(all.body!);
    expect(text.startsWith(`{"brokerAddr":"127.0.0.1:${h.addr.split(":")[1]}","consumeStatsList":[`)).toBe(
      true,
    );
    expect(text).toContain(gStats);
    expect(text.endsWith('],"totalDiff":1}')).toBe(true);
    // The same progress in store times (QUERY_CONSUME_TIME_SPAN): queue 1 holds 3, G consumed 2.
    const span = await c.invoke(h.addr, req(R.QUERY_CONSUME_TIME_SPAN, { topic: "TOff", group: "G" }));
    const spans = (json(span.body) as { consumeTimeSpanSet: Record<string, unknown>[] }).consumeTimeSpanSet;
    expect(spans.map((x) => (x.messageQueue as { queueId: number }).queueId)).toEqual([0, 1]);
    const { delayTime, ...q1Span } = spans[1]! as { delayTime: number };
    expect(q1Span).toEqual({
      messageQueue: { brokerName: "broker-it", queueId: 1, topic: "TOff" },
      minTimeStamp: records[0]!.storeTimestamp,
      maxTimeStamp: records[2]!.storeTimestamp,
      consumeTimeStamp: records[1]!.storeTimestamp,
    });
    // How long ago the next message to consume (the third) was stored.
    expect(delayTime).toBeGreaterThanOrEqual(Date.now() - records[2]!.storeTimestamp - 1000);
    expect(delayTime).toBeLessThanOrEqual(Date.now() - records[2]!.storeTimestamp);
    expect(
      answer(await c.invoke(h.addr, req(R.QUERY_CONSUME_TIME_SPAN, { topic: "NoTopic", group: "G" }))),
    ).toEqual({ code: ResponseCode.TOPIC_NOT_EXIST, remark: "topic[NoTopic] not exist" });
    // Ordered topics only: TOff is not ordered, so G lists none.
    const ordered = await c.invoke(h.addr, req(R.GET_BROKER_CONSUME_STATS, { isOrder: "true" }));
    expect(new TextDecoder().decode(ordered.body!)).toContain('{"G":[]}');
    // Reset to the time of the second message: both queues go to the first offset stored at or after it.
    const resetRequest = () =>
      req(R.INVOKE_BROKER_TO_RESET_OFFSET, {
        topic: "TOff",
        group: "G",
        timestamp: String(records[1]!.storeTimestamp),
        isForce: "true",
      });
    // No consumer of G is online: Apache's 206, and nothing moves (mqadmin then resets offline).
    const offline = await c.invoke(h.addr, resetRequest());
    expect({
      ...answer(offline),
      body: offline.body,
      offset: (await c.invoke(h.addr, req(R.QUERY_CONSUMER_OFFSET, q))).extFields,
    }).toEqual({
      code: ResponseCode.CONSUMER_NOT_ONLINE,
      remark: `Consumer not online, so can not reset offset, Group: G Topic: TOff Timestamp: ${records[1]!.storeTimestamp}`,
      body: null,
      offset: { offset: "2" },
    });
    const hb = await c.invoke(
      h.addr,
      req(R.HEART_BEAT, null, heartbeatBody("it@reset", { group: "G", topic: "TOff" })),
    );
    expect(hb.code).toBe(0);
    const reset = await c.invoke(h.addr, resetRequest());
    expect({ ...answer(reset), body: queueKeyed(reset.body) }).toEqual({
      code: 0,
      remark: null,
      body: { offsetTable: { "TOff/0": 0, "TOff/1": 1 } },
    });
    expect((await c.invoke(h.addr, req(R.QUERY_CONSUMER_OFFSET, q))).extFields).toEqual({ offset: "1" });
  });

  test("queue offsets, store times and lookups by id and by key", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TQry", 2);
    const records = await sendDistinctMillis(c, h.addr, "TQry", 3, st);
    const queue = { topic: "TQry", queueId: "1" };
    const ext = async (code: number, e: Record<string, string>) =>
      (await c.invoke(h.addr, req(code, e))).extFields;
    expect({
      max: await ext(R.GET_MAX_OFFSET, queue),
      min: await ext(R.GET_MIN_OFFSET, queue),
      earliest: await ext(R.GET_EARLIEST_MSG_STORETIME, queue),
      atSecond: await ext(R.SEARCH_OFFSET_BY_TIMESTAMP, {
        ...queue,
        timestamp: String(records[1]!.storeTimestamp),
      }),
    }).toEqual({
      max: { offset: "3" },
      min: { offset: "0" },
      earliest: { timestamp: String(records[0]!.storeTimestamp) },
      atSecond: { offset: "1" },
    });
    const viewed = await c.invoke(
      h.addr,
      req(R.VIEW_MESSAGE_BY_ID, { offset: String(records[1]!.physicalOffset) }),
    );
    expect({ code: viewed.code, records: decodeRecords(viewed.body).map(summary) }).toEqual({
      code: 0,
      records: [summary(records[1]!)],
    });
    const byKey = await c.invoke(
      h.addr,
      req(R.QUERY_MESSAGE, {
        topic: "TQry",
        key: "key-2",
        maxNum: "32",
        beginTimestamp: "0",
        endTimestamp: String(Date.now() + 60_000),
      }),
    );
    expect({ code: byKey.code, records: decodeRecords(byKey.body).map(summary) }).toEqual({
      code: 0,
      records: [summary(records[2]!)],
    });
    // Java's mqadmin queryMsgByKey (and queryMessageByUniqKey) asks up to Long.MAX_VALUE.
    const noEnd = await c.invoke(
      h.addr,
      req(R.QUERY_MESSAGE, {
        topic: "TQry",
        key: "key-2",
        maxNum: "64",
        beginTimestamp: "0",
        endTimestamp: "9223372036854775807",
      }),
    );
    expect({ code: noEnd.code, records: decodeRecords(noEnd.body).map(summary) }).toEqual({
      code: 0,
      records: [summary(records[2]!)],
    });
    const none = await c.invoke(
      h.addr,
      req(R.QUERY_MESSAGE, {
        topic: "TQry",
        key: "nope",
        maxNum: "32",
        beginTimestamp: "0",
        endTimestamp: "1",
      }),
    );
    expect(answer(none)).toEqual({
      code: ResponseCode.QUERY_NOT_FOUND,
      remark: "can not find message, maybe time range not correct",
    });
  });

  test("GET_SYSTEM_TOPIC_LIST_FROM_BROKER lists TopicValidator's system topics", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TOff", 1);
    const list = json((await c.invoke(h.addr, req(R.GET_SYSTEM_TOPIC_LIST_FROM_BROKER))).body) as {
      topicList: string[];
    };
    for (const topic of ["TBW102", "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC", "RMQ_SYS_TRACE_TOPIC"])
      expect(list.topicList).toContain(topic);
    // A user's topic is not a system topic.
    expect(list.topicList).not.toContain("TOff");
  });

  test("heartbeat registers consumer and producer connections; unregister removes them", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TCli", 2);
    const hb = await c.invoke(
      h.addr,
      req(
        R.HEART_BEAT,
        null,
        heartbeatBody("cid-1", { group: "GC", topic: "TCli", subString: "A || B" }, "PG1"),
      ),
    );
    expect(answer(hb)).toEqual({ code: 0, remark: null });
    const consumers = json(
      (await c.invoke(h.addr, req(R.GET_CONSUMER_CONNECTION_LIST, { consumerGroup: "GC" }))).body,
    );
    const local = (await c.connection(h.addr)).localAddress;
    expect(consumers).toEqual({
      connectionSet: [{ clientAddr: local, clientId: "cid-1", language: "JAVA", version: 479 }],
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      consumeType: "CONSUME_PASSIVELY",
      messageModel: "CLUSTERING",
      subscriptionTable: {
        TCli: {
          topic: "TCli",
          subString: "A || B",
          tagsSet: ["A", "B"],
          codeSet: [65, 66],
          subVersion: 1,
          classFilterMode: false,
          expressionType: "TAG",
        },
      },
    });
    const producers = json(
      (await c.invoke(h.addr, req(R.GET_PRODUCER_CONNECTION_LIST, { producerGroup: "PG1" }))).body,
    );
    expect(producers).toEqual({
      connectionSet: [{ clientAddr: local, clientId: "cid-1", language: "JAVA", version: 479 }],
    });
    // Every producer group at once (mqadmin producer -b): Java's ProducerTableInfo.
    const table = json((await c.invoke(h.addr, req(R.GET_ALL_PRODUCER_INFO))).body) as {
      data: Record<string, { lastUpdateTimestamp: number }[]>;
    };
    expect(table.data.PG1?.map(({ lastUpdateTimestamp: _, ...p }) => p)).toEqual([
      { clientId: "cid-1", remoteIP: `/${local}`, language: "JAVA", version: 479 },
    ]);
    expect(Math.abs(table.data.PG1![0]!.lastUpdateTimestamp - Date.now())).toBeLessThan(60_000);
    expect(
      json((await c.invoke(h.addr, req(R.GET_CONSUMER_LIST_BY_GROUP, { consumerGroup: "GC" }))).body),
    ).toEqual({
      consumerIdList: ["cid-1"],
    });
    const unreg = await c.invoke(
      h.addr,
      req(R.UNREGISTER_CLIENT, { clientID: "cid-1", consumerGroup: "GC", producerGroup: "PG1" }),
    );
    expect({
      unregister: answer(unreg),
      list: answer(await c.invoke(h.addr, req(R.GET_CONSUMER_LIST_BY_GROUP, { consumerGroup: "GC" }))),
      consumers: answer(await c.invoke(h.addr, req(R.GET_CONSUMER_CONNECTION_LIST, { consumerGroup: "GC" }))),
      producers: answer(
        await c.invoke(h.addr, req(R.GET_PRODUCER_CONNECTION_LIST, { producerGroup: "PG1" })),
      ),
    }).toEqual({
      unregister: { code: 0, remark: null },
      list: { code: ResponseCode.SYSTEM_ERROR, remark: "no consumer for this group, GC" },
      consumers: { code: ResponseCode.CONSUMER_NOT_ONLINE, remark: "the consumer group[GC] not online" },
      producers: { code: ResponseCode.SYSTEM_ERROR, remark: "the producer group[PG1] not exist" },
    });
  });

  test("subscription groups: create, list, delete", async () => {
    await using h = await startBroker();
    const c = h.client();
    const body = utf8.encode(
      JSON.stringify({ groupName: "SG1", retryMaxTimes: 3, consumeBroadcastEnable: false }),
    );
    expect(answer(await c.invoke(h.addr, req(R.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, null, body)))).toEqual({
      code: 0,
      remark: null,
    });
    const table = () =>
      c
        .invoke(h.addr, req(R.GET_ALL_SUBSCRIPTIONGROUP_CONFIG))
        .then(
          (r) => (json(r.body) as { subscriptionGroupTable: Record<string, unknown> }).subscriptionGroupTable,
        );
    expect((await table()).SG1).toEqual({
      groupName: "SG1",
      consumeEnable: true,
      consumeFromMinEnable: true,
      consumeBroadcastEnable: false,
      consumeMessageOrderly: false,
      retryQueueNums: 1,
      retryMaxTimes: 3,
      brokerId: 0,
      whichBrokerWhenConsumeSlowly: 1,
      notifyConsumerIdsChangedEnable: true,
      groupSysFlag: 0,
      consumeTimeoutMinute: 15,
      attributes: {},
    });
    expect(answer(await c.invoke(h.addr, req(R.DELETE_SUBSCRIPTIONGROUP, { groupName: "SG1" })))).toEqual({
      code: 0,
      remark: null,
    });
    expect("SG1" in (await table())).toBe(false);
  });

  test("VIEW_BROKER_STATS_DATA: per-topic puts and per-group gets by minute, hour and day, as Java's BrokerStatsData", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TStats", 1);
    for (let i = 0; i < 3; i++)
      await c.invoke(h.addr, sendRequest({ topic: "TStats", body: "x", queueId: 0 }, st));
    const pulled = await c.invoke(
      h.addr,
      pullRequest({ group: "GStats", topic: "TStats", queueId: 0, offset: 0 }, st),
    );
    expect(decodeRecords(pulled.body)).toHaveLength(3);
    const items = h.broker.context.stats.items;
    for (const w of [MINUTE_WINDOW, HOUR_WINDOW, DAY_WINDOW]) items.sample(w);
    const view = async (statsName: string, statsKey: string) => {
      const r = await c.invoke(h.addr, req(R.VIEW_BROKER_STATS_DATA, { statsName, statsKey }));
      return r.code === 0 ? json(r.body) : answer(r);
    };
    const puts = (await view("TOPIC_PUT_NUMS", "TStats")) as Record<
      string,
      { sum: number; tps: number; avgpt: number }
    >;
    expect([puts.statsMinute!.sum, puts.statsHour!.sum, puts.statsDay!.sum]).toEqual([3, 3, 3]);
    // 3 messages in 3 sends over the 10 s before the first sample; one message per send.
    expect(puts.statsMinute).toEqual({ sum: 3, tps: 0.3, avgpt: 1 });
    const gets = (await view("GROUP_GET_NUMS", "TStats@GStats")) as Record<string, { sum: number }>;
    expect(gets.statsDay!.sum).toBe(3);
    expect(
      ((await view("TOPIC_PUT_SIZE", "TStats")) as Record<string, { sum: number }>).statsDay!.sum,
    ).toBeGreaterThan(3);
    expect(await view("TOPIC_PUT_NUMS", "NoSuchTopic")).toEqual({
      code: ResponseCode.SYSTEM_ERROR,
      remark: "The stats <TOPIC_PUT_NUMS> <NoSuchTopic> not exist",
    });
  });

  test("CONSUME_MESSAGE_DIRECTLY: the stored message goes to the named consumer with the broker's name, and its answer comes back", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TDirect", 1);
    const sent = await c.invoke(h.addr, sendRequest({ topic: "TDirect", body: "direct-me", queueId: 0 }, st));
    const offsetMsgId = sent.extFields!.msgId!;
    // A consumer of G that answers 309 as Java's ClientRemotingProcessor does.
    const seen: RemotingCommand[] = [];
    c.registry.register(R.CONSUME_MESSAGE_DIRECTLY, (forwarded) => {
      seen.push(forwarded);
      const result = utf8.encode(
        JSON.stringify({ order: false, autoCommit: true, consumeResult: "CR_SUCCESS" }),
      );
      return RemotingCommand.response(ResponseCode.SUCCESS, null, null, result);
    });
    await c.invoke(
      h.addr,
      req(R.HEART_BEAT, null, heartbeatBody("it@direct", { group: "G", topic: "TDirect" })),
    );
    const admin = h.client();
    const call = (msgId: string, clientId = "it@direct") =>
      admin.invoke(h.addr, req(R.CONSUME_MESSAGE_DIRECTLY, { consumerGroup: "G", clientId, msgId }));
    const answered = await call(offsetMsgId);
    expect({ ...answer(answered), body: json(answered.body) }).toEqual({
      code: 0,
      remark: null,
      body: { order: false, autoCommit: true, consumeResult: "CR_SUCCESS" },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.extFields).toMatchObject({
      consumerGroup: "G",
      clientId: "it@direct",
      brokerName: "broker-it",
    });
    const forwarded = decodeRecords(seen[0]!.body);
    expect(forwarded.map((m) => [m.topic, new TextDecoder().decode(m.body)])).toEqual([
      ["TDirect", "direct-me"],
    ]);
    expect(answer(await call(offsetMsgId, "10.0.0.1@nobody"))).toEqual({
      code: ResponseCode.SYSTEM_ERROR,
      remark: "The Consumer <G> <10.0.0.1@nobody> not online",
    });
  });

  test("broker runtime info and config; UPDATE_BROKER_CONFIG changes the permission at run time", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TRt", 1);
    const sent = await c.invoke(h.addr, sendRequest({ topic: "TRt", body: "x" }, st));
    const info = (
      json((await c.invoke(h.addr, req(R.GET_BROKER_RUNTIME_INFO))).body) as { table: Record<string, string> }
    ).table;
    const stored = decodeRecords(
      (await c.invoke(h.addr, pullRequest({ group: "G", topic: "TRt", queueId: 0, offset: 0 }, st))).body,
    )[0]!;
    expect({
      brokerVersion: info.brokerVersion,
      brokerVersionDesc: info.brokerVersionDesc,
      msgPutTotalTodayNow: info.msgPutTotalTodayNow,
      putMessageTimesTotal: info.putMessageTimesTotal,
      commitLogMinOffset: info.commitLogMinOffset,
      commitLogMaxOffset: info.commitLogMaxOffset,
      earliestMessageTimeStamp: info.earliestMessageTimeStamp,
    }).toEqual({
      brokerVersion: "479",
      brokerVersionDesc: "V5_3_3",
      msgPutTotalTodayNow: "1",
      putMessageTimesTotal: "1",
      commitLogMinOffset: "0",
      commitLogMaxOffset: String(stored.storeSize),
      earliestMessageTimeStamp: String(stored.storeTimestamp),
    });
    expect(sent.code).toBe(0);
    // The partition's real fill, as Java reports it (retention and mqadmin's SPACE column read it).
    const commitLogDir = join(h.dir, "store", "commitlog");
    const diskText = ratioText(await diskUsedPercent(commitLogDir));
    expect(diskText).toMatch(/^(0\.\d{1,2}|1\.0)$/);
    expect({
      commitLogDiskRatio: info.commitLogDiskRatio,
      perPath: info[`commitLogDiskRatio_${commitLogDir}`],
      consumeQueueDiskRatio: info.consumeQueueDiskRatio,
    }).toEqual({ commitLogDiskRatio: diskText, perPath: diskText, consumeQueueDiskRatio: diskText });
    const config = new TextDecoder()
      .decode((await c.invoke(h.addr, req(R.GET_BROKER_CONFIG))).body!)
      .split("\n");
    expect(config.filter((l) => /^(brokerName|brokerPermission|flushDiskType)=/.test(l)).sort()).toEqual([
      "brokerName=broker-it",
      "brokerPermission=6",
      "flushDiskType=ASYNC_FLUSH",
    ]);
    // The netty server and client keys are there too, the bound port among them.
    expect(
      config.filter((l) => /^(listenPort|serverWorkerThreads|connectTimeoutMillis)=/.test(l)).sort(),
    ).toEqual(["connectTimeoutMillis=3000", `listenPort=${h.addr.split(":")[1]}`, "serverWorkerThreads=8"]);
    const update = (text: string) => c.invoke(h.addr, req(R.UPDATE_BROKER_CONFIG, null, utf8.encode(text)));
    expect({
      readOnly: answer(await update("brokerPermission=4\n")),
      send: answer(await c.invoke(h.addr, sendRequest({ topic: "TRt", body: "y" }, st))),
      restartOnly: answer(await update("listenPort=1\n")),
      blackListed: answer(await update("brokerConfigPath=/tmp/x\n")),
      typo: answer(await update("brokerPermision=6\n")),
      notAPerm: answer(await update("brokerPermission=rw\n")),
      notAPermNumber: answer(await update("brokerPermission=9\n")),
      writable: answer(await update("brokerPermission=6\n")),
      sendAgain: (await c.invoke(h.addr, sendRequest({ topic: "TRt", body: "z" }, st))).code,
    }).toEqual({
      readOnly: { code: 0, remark: null },
      send: {
        code: ResponseCode.NO_PERMISSION,
        remark: "the broker[broker-it] sending message is forbidden",
      },
      restartOnly: {
        code: ResponseCode.NO_PERMISSION,
        remark: expect.stringContaining(
          "'listenPort' cannot be changed at run time: set it in the broker's config file and restart (changeable at run time: brokerPermission, ",
        ),
      },
      blackListed: { code: ResponseCode.NO_PERMISSION, remark: "Can not update config in black list." },
      typo: {
        code: ResponseCode.NO_PERMISSION,
        remark: "unknown config key 'brokerPermision' (did you mean brokerPermission?)",
      },
      notAPerm: { code: ResponseCode.INVALID_PARAMETER, remark: 'brokerPermission: "rw" is not an int' },
      notAPermNumber: {
        code: ResponseCode.INVALID_PARAMETER,
        remark: "brokerPermission: 9 is above the maximum 7",
      },
      writable: { code: 0, remark: null },
      sendAgain: 0,
    });
  });
});
