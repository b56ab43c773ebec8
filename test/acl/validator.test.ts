/**
 * The check of every request family against RocketMQ's sample plain_acl.yml: who is let through,
 * and the remark (Java's AclException message) for each refusal.
 */
import { describe, expect, test } from "bun:test";
import { AclDenied } from "../../src/acl/errors.ts";
import { RemotingCommand, RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { heartbeatBody } from "../integration/harness.ts";
import { fakeConnection, outcome, SAMPLE_ACL, signed, validatorFor } from "./support.ts";

const v = validatorFor(SAMPLE_ACL);
const utf8 = (s: string) => new TextEncoder().encode(s);

const sendV2 = (topic: string, group = "PG") => ({
  a: group,
  b: topic,
  c: "TBW102",
  d: "4",
  e: "0",
  f: "0",
  g: "1",
  h: "0",
});
const pull = (topic: string, group: string) => ({
  consumerGroup: group,
  topic,
  queueId: "0",
  queueOffset: "0",
  maxMsgNums: "32",
  sysFlag: "2",
  commitOffset: "0",
  suspendTimeoutMillis: "0",
  subVersion: "0",
});

describe("who the request comes from", () => {
  test("a globally white-listed peer needs no signature at all", () => {
    const bare = RemotingCommand.request(RequestCode.UPDATE_AND_CREATE_TOPIC, { topic: "x" });
    expect(outcome(v, bare, "192.168.0.20:5555")).toBe("allowed");
    expect(outcome(v, bare, "10.10.103.1:5555")).toBe("allowed");
  });

  test("anyone else without AccessKey is refused, with or without ext fields", () => {
    expect(outcome(v, RemotingCommand.request(RequestCode.HEART_BEAT, null))).toBe(
      "No accessKey is configured",
    );
    expect(outcome(v, RemotingCommand.request(RequestCode.SEND_MESSAGE_V2, sendV2("topicB")))).toBe(
      "No accessKey is configured",
    );
  });

  test("an unknown access key, a wrong secret, or a body changed after signing are refused", () => {
    expect(outcome(v, signed(RequestCode.SEND_MESSAGE_V2, sendV2("topicB"), null, "Nobody00"))).toBe(
      "No acl config for Nobody00",
    );
    expect(
      outcome(v, signed(RequestCode.SEND_MESSAGE_V2, sendV2("topicB"), null, "RocketMQ", "wrong-secret")),
    ).toBe("Check signature failed for accessKey=RocketMQ");
    const tampered = signed(RequestCode.SEND_MESSAGE_V2, sendV2("topicB"), utf8("body"));
    tampered.body = utf8("BODY");
    expect(outcome(v, tampered)).toBe("Check signature failed for accessKey=RocketMQ");
  });

  test("an account's white-listed peer skips the signature and permission checks", () => {
    const forged = signed(
      RequestCode.UPDATE_AND_CREATE_TOPIC,
      { topic: "t" },
      null,
      "rocketmq2",
      "not-the-secret",
    );
    expect(outcome(v, forged, "192.168.1.9:4000")).toBe("allowed");
    expect(outcome(v, forged, "192.168.2.9:4000")).toBe("Check signature failed for accessKey=rocketmq2");
  });

  test("a refusal is a RemotingError answering NO_PERMISSION", () => {
    let caught: unknown;
    try {
      v.check(RemotingCommand.request(RequestCode.HEART_BEAT, null), fakeConnection("127.0.0.1:1"));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AclDenied);
    expect((caught as AclDenied).code).toBe(ResponseCode.NO_PERMISSION);
  });
});

describe("what the request touches", () => {
  test("sends need PUB on the topic: its own permission first, else the default", () => {
    const send = (topic: string) => outcome(v, signed(RequestCode.SEND_MESSAGE_V2, sendV2(topic), utf8("b")));
    expect(send("topicB")).toBe("allowed");
    expect(send("topicA")).toBe("No permission for topic:topicA");
    expect(send("topicC")).toBe("No permission for topic:topicC");
    expect(send("topicD")).toBe("No default permission for topic:topicD");
    const v1 = (topic: string) =>
      outcome(v, signed(RequestCode.SEND_MESSAGE, { producerGroup: "PG", topic, queueId: "0" }, utf8("b")));
    expect([v1("topicB"), v1("topicC")]).toEqual(["allowed", "No permission for topic:topicC"]);
    const batch = signed(RequestCode.SEND_BATCH_MESSAGE, { ...sendV2("topicA"), m: "true" }, utf8("b"));
    expect(outcome(v, batch)).toBe("No permission for topic:topicA");
  });

  test("a send to a retry topic needs SUB on the group named in the header", () => {
    const back = (group: string) =>
      outcome(v, signed(RequestCode.SEND_MESSAGE_V2, sendV2(`%RETRY%${group}`, group), utf8("b")));
    expect([back("groupB"), back("groupX"), back("groupA")]).toEqual([
      "allowed",
      "allowed",
      "No permission for group:groupA",
    ]);
    const sendBack = (group: string) =>
      outcome(v, signed(RequestCode.CONSUMER_SEND_MSG_BACK, { group, offset: "1", delayLevel: "0" }));
    expect([sendBack("groupC"), sendBack("groupA")]).toEqual(["allowed", "No permission for group:groupA"]);
  });

  test("pulls need SUB on the topic and on the group", () => {
    const p = (topic: string, group: string) =>
      outcome(v, signed(RequestCode.PULL_MESSAGE, pull(topic, group)));
    expect(p("topicC", "groupC")).toBe("allowed");
    expect(p("topicB", "groupX")).toBe("allowed");
    expect(p("topicA", "groupC")).toBe("No permission for topic:topicA");
    expect(p("topicC", "groupA")).toBe("No permission for group:groupA");
    expect(p("%RETRY%groupB", "groupB")).toBe("allowed");
    expect(p("%RETRY%groupA", "groupA")).toBe("No permission for group:groupA");
  });

  test("heart beats need SUB on every consumer group and subscribed topic; producer-only ones touch nothing", () => {
    const hb = (group: string, topic: string) =>
      outcome(v, signed(RequestCode.HEART_BEAT, null, heartbeatBody("c1", { group, topic })));
    expect(hb("groupC", "topicC")).toBe("allowed");
    expect(hb("groupA", "topicC")).toBe("No permission for group:groupA");
    expect(hb("groupC", "topicA")).toBe("No permission for topic:topicA");
    expect(outcome(v, signed(RequestCode.HEART_BEAT, null, heartbeatBody("c1", undefined, "PG")))).toBe(
      "allowed",
    );
    expect(outcome(v, signed(RequestCode.HEART_BEAT, null, utf8("not json")))).toStartWith(
      "bad HeartbeatData body",
    );
  });

  test("group requests need SUB on the group; a header Java cannot decode is refused with its message", () => {
    const group = (code: number, ext: Record<string, string>) => outcome(v, signed(code, ext));
    expect(group(RequestCode.UNREGISTER_CLIENT, { clientID: "c1", consumerGroup: "groupA" })).toBe(
      "No permission for group:groupA",
    );
    expect(group(RequestCode.UNREGISTER_CLIENT, { clientID: "c1", producerGroup: "PG" })).toBe("allowed");
    expect(group(RequestCode.UNREGISTER_CLIENT, { consumerGroup: "groupC" })).toBe(
      "the custom field <clientID> is null",
    );
    expect(group(RequestCode.GET_CONSUMER_LIST_BY_GROUP, { consumerGroup: "groupA" })).toBe(
      "No permission for group:groupA",
    );
    const offset = { consumerGroup: "groupC", topic: "topicA", queueId: "0", commitOffset: "5" };
    expect(group(RequestCode.UPDATE_CONSUMER_OFFSET, offset)).toBe("No permission for topic:topicA");
    expect(group(RequestCode.UPDATE_CONSUMER_OFFSET, { ...offset, topic: "topicC" })).toBe("allowed");
    expect(group(RequestCode.QUERY_MESSAGE, { topic: "topicA", key: "k", maxNum: "1" })).toBe(
      "No permission for topic:topicA",
    );
  });

  test("codes with no resources need only a valid signature, as in Java", () => {
    const query = { consumerGroup: "groupA", topic: "topicA", queueId: "0" };
    expect(outcome(v, signed(RequestCode.QUERY_CONSUMER_OFFSET, query))).toBe("allowed");
    expect(outcome(v, RemotingCommand.request(RequestCode.QUERY_CONSUMER_OFFSET, query))).toBe(
      "No accessKey is configured",
    );
  });

  test("a PUB to RMQ_SYS_TRACE_TOPIC passes whatever the topic permissions say", () => {
    expect(outcome(v, signed(RequestCode.SEND_MESSAGE_V2, sendV2("RMQ_SYS_TRACE_TOPIC"), utf8("t")))).toBe(
      "allowed",
    );
  });
});

describe("admin-only requests", () => {
  test("Java's admin codes and the ACL updates are refused to an account that is not admin", () => {
    const codes = [
      RequestCode.UPDATE_AND_CREATE_TOPIC,
      RequestCode.UPDATE_BROKER_CONFIG,
      RequestCode.DELETE_TOPIC_IN_BROKER,
      RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
      RequestCode.DELETE_SUBSCRIPTIONGROUP,
      RequestCode.UPDATE_AND_CREATE_ACL_CONFIG,
      RequestCode.DELETE_ACL_CONFIG,
      RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG,
    ];
    for (const code of codes) {
      expect(outcome(v, signed(code, { topic: "topicB" }))).toBe(
        `Need admin permission for request code=${code}, but accessKey=RocketMQ is not`,
      );
      expect(outcome(v, signed(code, { topic: "topicB" }, null, "rocketmq2"))).toBe("allowed");
    }
  });

  test("an admin account with topic or group permissions is held to them and to its defaults, as in Java", () => {
    const scoped = validatorFor(`
accounts:
  - accessKey: ScopedAdmin
    secretKey: 12345678
    admin: true
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - topicA=PUB
      - topicD=DENY
`);
    const as = (code: number, ext: Record<string, string>) =>
      outcome(scoped, signed(code, ext, null, "ScopedAdmin"));
    expect(as(RequestCode.SEND_MESSAGE_V2, sendV2("topicA"))).toBe("allowed");
    expect(as(RequestCode.SEND_MESSAGE_V2, sendV2("topicD"))).toBe("No permission for topic:topicD");
    expect(as(RequestCode.SEND_MESSAGE_V2, sendV2("topicZ"))).toBe("No default permission for topic:topicZ");
    // Admin-only codes stay its own, whatever it may touch.
    expect(as(RequestCode.UPDATE_AND_CREATE_TOPIC, { topic: "topicZ" })).toBe("allowed");
    // The sample's admin (no permissions listed) may touch anything.
    expect(outcome(v, signed(RequestCode.SEND_MESSAGE_V2, sendV2("topicA"), null, "rocketmq2"))).toBe(
      "allowed",
    );
  });

  test("reading the ACL version or the broker config needs no admin", () => {
    expect(outcome(v, signed(RequestCode.GET_BROKER_CLUSTER_ACL_INFO, null))).toBe("allowed");
    expect(outcome(v, signed(RequestCode.GET_BROKER_CONFIG, null))).toBe("allowed");
  });
});
