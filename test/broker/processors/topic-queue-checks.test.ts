import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type RemotingClient, RequestCode, ResponseCode } from "../../../src/remoting/index.ts";
import { type BrokerHarness, request, sendRequest, startBroker } from "../../integration/harness.ts";

/** SEND_MESSAGE_V2 to a topic the broker does not have, asking for `queueNums` queues (`d`). */
function sendAsking(topic: string, queueNums: number) {
  const cmd = sendRequest({ topic, body: "x", queueId: 0 });
  cmd.extFields = { ...cmd.extFields, d: String(queueNums) };
  return cmd;
}

function createTopicRequest(topic: string, fields: Record<string, string>) {
  return request(RequestCode.UPDATE_AND_CREATE_TOPIC, {
    topic,
    readQueueNums: "4",
    writeQueueNums: "4",
    perm: "6",
    topicFilterType: "SINGLE_TAG",
    ...fields,
  });
}

async function topicExists(h: BrokerHarness, c: RemotingClient, topic: string): Promise<boolean> {
  const reply = await c.invoke(h.addr, request(RequestCode.GET_TOPIC_CONFIG, { topic }));
  return reply.code === ResponseCode.SUCCESS;
}

async function savedTopics(h: BrokerHarness): Promise<string[]> {
  const saved = JSON.parse(await readFile(join(h.dir, "store", "config", "topics.json"), "utf8"));
  return Object.keys(saved.topicConfigTable);
}

describe("a send that would auto-create a topic without queues", () => {
  test("is refused with INVALID_PARAMETER for defaultTopicQueueNums -5 and 0, and creates nothing, even after a restart", async () => {
    await using h = await startBroker();
    const c = h.client();
    const transcript = [];
    for (const [topic, n] of [
      ["TNeg", -5],
      ["TZero", 0],
    ] as const) {
      const reply = await c.invoke(h.addr, sendAsking(topic, n));
      transcript.push([reply.code, reply.remark?.replace(/producer [\d.:]+$/, "producer <addr>")]);
    }
    expect(transcript).toEqual([
      [
        ResponseCode.INVALID_PARAMETER,
        "request defaultTopicQueueNums[-5] is illegal, topic[TNeg] is not created, producer <addr>",
      ],
      [
        ResponseCode.INVALID_PARAMETER,
        "request defaultTopicQueueNums[0] is illegal, topic[TZero] is not created, producer <addr>",
      ],
    ]);
    expect([await topicExists(h, c, "TNeg"), await topicExists(h, c, "TZero")]).toEqual([false, false]);
    await h.restart();
    const after = h.client();
    expect([await topicExists(h, after, "TNeg"), await topicExists(h, after, "TZero")]).toEqual([
      false,
      false,
    ]);
    expect((await savedTopics(h)).filter((t) => t === "TNeg" || t === "TZero")).toEqual([]);
  });

  test("a sensible count still auto-creates the topic, capped by the template's write queues", async () => {
    await using h = await startBroker();
    const c = h.client();
    const reply = await c.invoke(h.addr, sendAsking("TFine", 64));
    expect(reply.code).toBe(ResponseCode.SUCCESS);
    // TBW102 has defaultTopicQueueNums (8) write queues.
    expect(h.broker.context.topics.get("TFine")).toMatchObject({
      readQueueNums: 8,
      writeQueueNums: 8,
      perm: 6,
    });
  });
});

describe("UPDATE_AND_CREATE_TOPIC", () => {
  test("refuses impossible queue counts, permissions and filter types, creating nothing", async () => {
    await using h = await startBroker();
    const c = h.client();
    const cases: [string, Record<string, string>][] = [
      ["negative read queues", { readQueueNums: "-1" }],
      ["negative write queues", { writeQueueNums: "-5" }],
      ["too many queues", { writeQueueNums: "1025" }],
      ["no queue at all", { readQueueNums: "0", writeQueueNums: "0" }],
      ["the priority bit", { perm: "8" }],
      ["a negative perm", { perm: "-1" }],
      ["an unknown filter type", { topicFilterType: "BOGUS" }],
    ];
    const transcript = [];
    for (const [what, fields] of cases) {
      const reply = await c.invoke(h.addr, createTopicRequest("TBad", fields));
      transcript.push([what, reply.code, reply.remark]);
    }
    expect(transcript).toEqual([
      [
        "negative read queues",
        ResponseCode.INVALID_PARAMETER,
        "readQueueNums[-1] is illegal, it must be within 0..1024",
      ],
      [
        "negative write queues",
        ResponseCode.INVALID_PARAMETER,
        "writeQueueNums[-5] is illegal, it must be within 0..1024",
      ],
      [
        "too many queues",
        ResponseCode.INVALID_PARAMETER,
        "writeQueueNums[1025] is illegal, it must be within 0..1024",
      ],
      [
        "no queue at all",
        ResponseCode.INVALID_PARAMETER,
        "readQueueNums and writeQueueNums are both 0: the topic would have no queue",
      ],
      ["the priority bit", ResponseCode.NO_PERMISSION, "topicPermission value: 8 is invalid."],
      ["a negative perm", ResponseCode.NO_PERMISSION, "topicPermission value: -1 is invalid."],
      [
        "an unknown filter type",
        ResponseCode.INVALID_PARAMETER,
        "topicFilterType[BOGUS] is illegal, it must be one of SINGLE_TAG, MULTI_TAG",
      ],
    ]);
    expect(await topicExists(h, c, "TBad")).toBe(false);
  });

  test("accepts the resizing states: no write queue while draining, no read queue while filling, and the maximum", async () => {
    await using h = await startBroker();
    const c = h.client();
    for (const [read, write] of [
      ["4", "0"],
      ["0", "4"],
      ["1024", "1024"],
    ]) {
      const reply = await c.invoke(
        h.addr,
        createTopicRequest("TResize", {
          readQueueNums: read!,
          writeQueueNums: write!,
          topicFilterType: "MULTI_TAG",
        }),
      );
      expect({ code: reply.code, remark: reply.remark }).toEqual({
        code: ResponseCode.SUCCESS,
        remark: null,
      });
      expect(h.broker.context.topics.get("TResize")).toMatchObject({
        readQueueNums: Number(read),
        writeQueueNums: Number(write),
        topicFilterType: "MULTI_TAG",
      });
    }
  });
});
