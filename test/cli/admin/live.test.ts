/**
 * Every admin verb as a subprocess against one `rocketbun start` (NameServer + Broker), checking its
 * table, its --json output and its exit code. Each test uses its own topic and group names.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createProducer, createPushConsumer, type SendResult } from "../../../src/client/index.ts";
import { waitFor } from "../../client/harness.ts";
import { silent } from "../../support/silent.ts";
import { type AdminServer, rows, startAdminServer } from "./server.ts";

let rb: AdminServer;

beforeAll(async () => {
  rb = await startAdminServer();
});

afterAll(async () => {
  await rb?.[Symbol.asyncDispose]();
});

async function ok(verb: string, ...args: string[]): Promise<string> {
  const r = await rb.admin(verb, ...args);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  return r.stdout;
}

async function json<T = unknown>(verb: string, ...args: string[]): Promise<T> {
  return JSON.parse(await ok(verb, ...args, "--json")) as T;
}

async function createTopic(topic: string, queues = 4): Promise<void> {
  await ok("updateTopic", "-t", topic, "-c", rb.clusterName, "-r", String(queues), "-w", String(queues));
}

/** Sends `count` messages to queue 0 of `topic` through the CLI. */
async function sendToQueue0(topic: string, count: number, ...extra: string[]): Promise<SendResult> {
  const args = ["-t", topic, "-p", "body", "-b", rb.brokerName, "-i", "0", ...extra];
  if (count > 1) args.push("--count", String(count));
  return json<SendResult>("sendMessage", ...args);
}

describe("admin: cluster and broker", () => {
  test("clusterList shows the broker with its address, version and state", async () => {
    const table = rows(await ok("clusterList"));
    expect(table[0]).toEqual([
      "#Cluster Name",
      "#Broker Name",
      "#BID",
      "#Addr",
      "#Version",
      "#InTPS",
      "#OutTPS",
      "#PCWait(ms)",
      "#Hour",
      "#SPACE",
      "#ACTIVATED",
    ]);
    expect(table.slice(1).map((r) => [r[0], r[1], r[2], r[3], r[4], r[10]])).toEqual([
      [rb.clusterName, rb.brokerName, "0", rb.brokerAddr, "V5_3_3", "true"],
    ]);
    const [broker] = await json<{ addr: string; brokerId: number; activated: boolean }[]>("clusterList");
    expect([broker?.addr, broker?.brokerId, broker?.activated]).toEqual([rb.brokerAddr, 0, true]);
    expect(rows(await ok("clusterList", "-m"))[0]).toEqual([
      "#Cluster Name",
      "#Broker Name",
      "#InTotalYest",
      "#OutTotalYest",
      "#InTotalToday",
      "#OutTotalToday",
    ]);
  });

  test("brokerStatus prints the runtime table sorted by key, by address or by cluster", async () => {
    const lines = (await ok("brokerStatus", "-b", rb.brokerAddr)).trimEnd().split("\n");
    const keys = lines.map((l) => l.split(":")[0]!.trim());
    expect(keys).toEqual([...keys].sort());
    expect(lines.find((l) => l.startsWith("brokerVersionDesc"))?.replace(/ +/g, " ")).toBe(
      "brokerVersionDesc : V5_3_3",
    );
    const single = await json<Record<string, string>>("brokerStatus", "-b", rb.brokerAddr);
    expect([single.brokerVersionDesc, single.brokerActive]).toEqual(["V5_3_3", "true"]);
    const byCluster = await json<Record<string, Record<string, string>>>(
      "brokerStatus",
      "-c",
      rb.clusterName,
    );
    expect(Object.keys(byCluster)).toEqual([rb.brokerAddr]);
  });

  test("getBrokerConfig prints key = value lines; updateBrokerConfig changes a run-time key", async () => {
    const text = await ok("getBrokerConfig", "-b", rb.brokerAddr);
    expect(text.split("\n")[0]).toBe(`============${rb.brokerAddr}============`);
    expect(text).toMatch(new RegExp(`\\nbrokerName +=  ?${rb.brokerName}\\n`));
    const config = await json<Record<string, string>>("getBrokerConfig", "-b", rb.brokerAddr);
    expect(config.brokerName).toBe(rb.brokerName);
    expect(await ok("getBrokerConfig", "-c", rb.clusterName)).toStartWith(
      `============Master: ${rb.brokerAddr}`,
    );

    expect(await ok("updateBrokerConfig", "-b", rb.brokerAddr, "-k", "brokerPermission", "-v", "6")).toBe(
      `broker ${rb.brokerAddr}: brokerPermission=6 updated\n`,
    );
    expect(
      await json("updateBrokerConfig", "-c", rb.clusterName, "-k", "brokerPermission", "-v", "6"),
    ).toEqual({ key: "brokerPermission", value: "6", brokerAddrs: [rb.brokerAddr] });
    const refused = await rb.admin("updateBrokerConfig", "-b", rb.brokerAddr, "-k", "listenPort", "-v", "1");
    expect([refused.code, refused.stdout]).toEqual([1, ""]);
    expect(refused.stderr).toStartWith("rocketbun: updateBrokerConfig: NO_PERMISSION: ");
  });
});

describe("admin: topics", () => {
  test("updateTopic creates a topic that topicList, topicRoute and topicStatus show", async () => {
    expect(await ok("updateTopic", "-t", "AdmT", "-b", rb.brokerAddr, "-r", "2", "-w", "2")).toBe(
      `topic AdmT created or updated on broker ${rb.brokerAddr}\nreadQueueNums=2 writeQueueNums=2 perm=6 order=false\n`,
    );
    expect((await ok("topicList")).split("\n")).toContain("AdmT");
    expect(await json<string[]>("topicList")).toContain("AdmT");
    const withCluster = rows(await ok("topicList", "-c"));
    expect(withCluster[0]).toEqual(["#Cluster Name", "#Topic", "#Consumer Group"]);
    expect(withCluster).toContainEqual([rb.clusterName, "AdmT"]);

    expect(rows(await ok("topicRoute", "-t", "AdmT", "-l"))).toEqual([
      ["#ClusterName", "#BrokerName", "#BrokerAddrs", "#ReadQueue", "#WriteQueue", "#Perm"],
      [rb.clusterName, rb.brokerName, `{0=${rb.brokerAddr}}`, "2", "2", "6"],
      ["Total:", "1", "2", "2"],
    ]);
    const route = JSON.parse(await ok("topicRoute", "-t", "AdmT"));
    expect(route.queueDatas).toEqual([
      { brokerName: rb.brokerName, readQueueNums: 2, writeQueueNums: 2, perm: 6, topicSysFlag: 0 },
    ]);
    expect(route.brokerDatas[0].brokerAddrs).toEqual({ "0": rb.brokerAddr });

    expect(rows(await ok("topicStatus", "-t", "AdmT"))).toEqual([
      ["#Broker Name", "#QID", "#Min Offset", "#Max Offset", "#Last Updated"],
      [rb.brokerName, "0", "0", "0"],
      [rb.brokerName, "1", "0", "0"],
    ]);
  });

  test("topicStatus counts sent messages; deleteTopic removes the route", async () => {
    await createTopic("AdmDel", 2);
    await sendToQueue0("AdmDel", 3);
    const status = await json<{ queueId: number; maxOffset: number; lastUpdateTimestamp: number }[]>(
      "topicStatus",
      "-t",
      "AdmDel",
    );
    expect(status.map((s) => [s.queueId, s.maxOffset, s.lastUpdateTimestamp > 0])).toEqual([
      [0, 3, true],
      [1, 0, false],
    ]);
    expect(await ok("deleteTopic", "-t", "AdmDel", "-c", rb.clusterName)).toBe(
      `topic AdmDel deleted from its brokers in cluster ${rb.clusterName} and from the NameServer\n`,
    );
    const gone = await rb.admin("topicRoute", "-t", "AdmDel");
    expect(gone).toEqual({
      code: 1,
      stdout: "",
      stderr: "rocketbun: topicRoute: TOPIC_NOT_EXIST: No topic route info for AdmDel\n",
    });
  });
});

describe("admin: messages", () => {
  test("sendMessage prints where the message went; it is found by id, by key and by offset", async () => {
    await createTopic("AdmMsg", 2);
    const table = rows(await ok("sendMessage", "-t", "AdmMsg", "-p", "first", "-k", "key-1", "-c", "TagA"));
    expect(table[0]).toEqual(["#Broker Name", "#QID", "#Send Result", "#MsgId"]);
    expect(table[1]?.slice(0, 1)).toEqual([rb.brokerName]);
    expect(table[1]?.[2]).toBe("SEND_OK");
    const msgId = table[1]?.[3] ?? "";

    const byId = await ok("queryMsgById", "-t", "AdmMsg", "-i", msgId, "-f", "UTF-8");
    expect(byId).toContain(`MsgId:            ${msgId}\n`);
    expect(byId).toContain("Tags:             [TagA]\n");
    expect(byId).toContain("Keys:             [key-1]\n");
    expect(byId).toContain("Message Body:     first\n");
    const found = await json<{ msgId: string; body: string; keys: string[]; offsetMsgId: string }>(
      "queryMsgById",
      "-t",
      "AdmMsg",
      "-i",
      msgId,
    );
    expect([found.msgId, found.body, found.keys]).toEqual([msgId, "first", ["key-1"]]);
    const byOffsetId = await json<{ msgId: string }>("queryMsgById", "-t", "AdmMsg", "-i", found.offsetMsgId);
    expect(byOffsetId.msgId).toBe(msgId);

    const byKey = rows(await ok("queryMsgByKey", "-t", "AdmMsg", "-k", "key-1"));
    expect(byKey.map((r) => r[0])).toEqual(["#Message ID", msgId]);

    const sent = await sendToQueue0("AdmMsg", 1, "-k", "key-2");
    const atOffset = await json<{ msgId: string; queueOffset: number }>(
      "queryMsgByOffset",
      "-t",
      "AdmMsg",
      "-b",
      rb.brokerName,
      "-i",
      "0",
      "-o",
      String(sent.queueOffset),
    );
    expect(atOffset).toMatchObject({ msgId: sent.msgId, queueOffset: sent.queueOffset });
    const missing = await rb.admin(
      "queryMsgByOffset",
      "-t",
      "AdmMsg",
      "-b",
      rb.brokerName,
      "-i",
      "0",
      "-o",
      "99",
    );
    expect([missing.code, missing.stderr]).toEqual([
      1,
      `rocketbun: queryMsgByOffset: no message at offset 99 of AdmMsg/${rb.brokerName}/0\n`,
    ]);
    const unknownId = await rb.admin(
      "queryMsgById",
      "-t",
      "AdmMsg",
      "-i",
      "00000000000000000000000000000000",
    );
    expect(unknownId.code).toBe(1);
  });

  test("sendMessage --count sends many and reports them per queue; consumeMessage reads them back", async () => {
    await createTopic("AdmBulk", 2);
    const bulk = await json<{ sent: number; queues: { queueId: number; sent: number }[] }>(
      "sendMessage",
      "-t",
      "AdmBulk",
      "-p",
      "bulk",
      "--count",
      "40",
    );
    expect(bulk.sent).toBe(40);
    expect(bulk.queues.reduce((n, q) => n + q.sent, 0)).toBe(40);
    const text = await ok(
      "sendMessage",
      "-t",
      "AdmBulk",
      "-p",
      "more",
      "--count",
      "4",
      "-b",
      rb.brokerName,
      "-i",
      "1",
    );
    expect(rows(text.replace(/in \d+ ms/, "in N ms"))).toEqual([
      ["#Broker Name", "#QID", "#Sent"],
      [rb.brokerName, "1", "4"],
      [],
      ["sent 4 messages in N ms"],
    ]);

    const all = await json<{ body: string }[]>("consumeMessage", "-t", "AdmBulk", "-c", "1000");
    expect(all.length).toBe(44);
    expect(await json<unknown[]>("consumeMessage", "-t", "AdmBulk", "-c", "5")).toHaveLength(5);
    const q1 = rows(await ok("consumeMessage", "-t", "AdmBulk", "-b", rb.brokerName, "-i", "1", "-o", "20"));
    expect(q1[0]).toEqual([
      "#Broker Name",
      "#QID",
      "#Offset",
      "#MsgId",
      "#Tags",
      "#Keys",
      "#StoreTime",
      "#Body",
    ]);
    const offsets = q1.slice(1).map((r) => Number(r[2]));
    expect(offsets[0]).toBe(20);
    expect(q1.slice(1).every((r) => r[1] === "1")).toBe(true);
  });
});

describe("admin: progress", () => {
  // `script` gives the child a terminal for stderr; the bar is drawn only there.
  test.skipIf(Bun.which("script") === null)(
    "sendMessage --count draws a progress bar on a terminal",
    async () => {
      await createTopic("AdmBar", 2);
      const command = [process.execPath, "src/cli/main.ts", "admin", "sendMessage", "-n", rb.namesrvAddr]
        .concat(["-t", "AdmBar", "-p", "x", "--count", "300", ">/dev/null"])
        .join(" ");
      const proc = Bun.spawn(["script", "-qc", command, "/dev/null"], {
        cwd: `${import.meta.dir}/../../..`,
        stdout: "pipe",
        stderr: "pipe",
        env: { PATH: process.env.PATH ?? "", ROCKETBUN_LOG_LEVEL: "silent" },
      });
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      expect(code).toBe(0);
      const frames = out
        .split("\r")
        .map((f) => f.trim())
        .filter((f) => f !== "");
      expect(frames.at(-1)).toMatch(/^\[#{30}\] 300\/300 msgs 100% \d+\/s$/);
    },
  );
});

describe("admin: groups", () => {
  test("updateSubGroup, consumerProgress, resetOffsetByTime and deleteSubGroup on one group", async () => {
    await createTopic("AdmGrp", 2);
    await sendToQueue0("AdmGrp", 5);
    expect(await ok("updateSubGroup", "-g", "AdmG", "-b", rb.brokerAddr, "-r", "3", "-s", "true")).toBe(
      `subscription group AdmG created or updated on broker ${rb.brokerAddr}\n`,
    );
    expect(await json("updateSubGroup", "-g", "AdmG", "-c", rb.clusterName, "-q", "1")).toEqual({
      groupName: "AdmG",
      retryQueueNums: 1,
      brokerAddrs: [rb.brokerAddr],
    });

    const before = rows(await ok("consumerProgress", "-g", "AdmG", "-t", "AdmGrp"));
    expect(before).toEqual([
      ["#Topic", "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset", "#Diff", "#LastTime"],
      ["AdmGrp", rb.brokerName, "0", "5", "0", "5", "N/A"],
      ["AdmGrp", rb.brokerName, "1", "0", "0", "0", "N/A"],
      [],
      ["Consume Diff Total: 5"],
    ]);

    const reset = await json<{ offsets: { brokerName: string; queueId: number; offset: number }[] }>(
      "resetOffsetByTime",
      "-g",
      "AdmG",
      "-t",
      "AdmGrp",
      "-s",
      "now",
    );
    expect(reset.offsets).toEqual([
      { brokerName: rb.brokerName, queueId: 0, offset: 5 },
      { brokerName: rb.brokerName, queueId: 1, offset: 0 },
    ]);
    const after = await json<{ diffTotal: number }>("consumerProgress", "-g", "AdmG", "-t", "AdmGrp");
    expect(after.diffTotal).toBe(0);
    const back = rows(await ok("resetOffsetByTime", "-g", "AdmG", "-t", "AdmGrp", "-s", "0"));
    expect(back.slice(1)).toEqual([
      ["#brokerName", "#queueId", "#offset"],
      [rb.brokerName, "0", "0"],
      [rb.brokerName, "1", "0"],
    ]);
    const one = await json<{ offsets: unknown[] }>(
      "resetOffsetByTime",
      ...["-g", "AdmG", "-t", "AdmGrp", "-s", "0", "-b", rb.brokerAddr, "-q", "0", "-o", "3"],
    );
    expect(one.offsets).toEqual([{ brokerName: rb.brokerName, queueId: 0, offset: 3 }]);

    const groups = rows(await ok("consumerProgress"));
    expect(groups[0]).toEqual(["#Group", "#Count", "#Version", "#Type", "#Model", "#Diff Total"]);
    expect(groups.find((r) => r[0] === "AdmG")).toEqual(["AdmG", "0", "OFFLINE", "2"]);

    expect(await ok("deleteSubGroup", "-g", "AdmG", "-r", "true")).toBe(
      `subscription group AdmG deleted from broker ${rb.brokerAddr}\n`,
    );
    expect(rows(await ok("consumerProgress")).find((r) => r[0] === "AdmG")).toBeUndefined();
  });

  test("consumerConnection and producerConnection show live clients", async () => {
    await createTopic("AdmConn", 2);
    const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, group: "AdmPG", log: silent });
    const consumer = await createPushConsumer({
      namesrvAddr: rb.namesrvAddr,
      group: "AdmCG",
      subscriptions: { AdmConn: "TagA || TagB" },
      onMessage: () => {},
      log: silent,
    });
    try {
      await producer.send({ topic: "AdmConn", body: "x" });
      await producer.client.heartbeatAll();
      const pc = await waitFor("the producer is registered", async () => {
        const r = await rb.admin("producerConnection", "-g", "AdmPG", "-t", "AdmConn", "--json");
        return r.code === 0 ? (JSON.parse(r.stdout) as { clientId: string; version: number }[]) : null;
      });
      expect(pc.map((c) => [c.clientId, c.version])).toEqual([[producer.client.clientId, 479]]);
      const pcTable = rows(await ok("producerConnection", "-g", "AdmPG", "-t", "AdmConn"));
      expect(pcTable[0]).toEqual(["#No", "#ClientId", "#ClientAddr", "#Language", "#Version"]);
      expect([pcTable[1]?.[0], pcTable[1]?.[1], pcTable[1]?.[3], pcTable[1]?.[4]]).toEqual([
        "0001",
        producer.client.clientId,
        "JAVA",
        "V5_3_3",
      ]);

      const cc = rows(await ok("consumerConnection", "-g", "AdmCG"));
      expect(cc[0]).toEqual(["#ClientId", "#ClientAddr", "#Language", "#Version"]);
      expect(cc[1]?.[0]).toBe(consumer.client.clientId);
      expect(cc).toContainEqual(["AdmConn", "TagA || TagB"]);
      expect(cc).toContainEqual(["MessageModel: CLUSTERING"]);
      const ccJson = await json<{ connections: { clientId: string }[]; messageModel: string }>(
        "consumerConnection",
        "-g",
        "AdmCG",
      );
      expect([ccJson.connections.map((c) => c.clientId), ccJson.messageModel]).toEqual([
        [consumer.client.clientId],
        "CLUSTERING",
      ]);
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
    }
    const offline = await rb.admin("consumerConnection", "-g", "AdmNobody");
    expect([offline.code, offline.stderr.split(" [")[0]]).toEqual([
      1,
      "rocketbun: consumerConnection: CONSUMER_NOT_ONLINE: the consumer group[AdmNobody] not online",
    ]);
  });
});

describe("admin: usage and failures", () => {
  test("bad usage exits 2 naming the flag or the missing value", async () => {
    const cases: [string[], string][] = [
      [
        ["topicRoute", "-x"],
        "rocketbun: unknown flag '-x' for 'admin topicRoute' (see rocketbun admin topicRoute --help)",
      ],
      [["topicRoute"], "rocketbun: 'admin topicRoute' needs -t (see rocketbun admin topicRoute --help)"],
      [
        ["updateTopic", "-t", "X"],
        "rocketbun: 'admin updateTopic' needs -b or -c (see rocketbun admin updateTopic --help)",
      ],
      [
        ["updateTopic", "-t", "X", "-c", "C", "-r", "many"],
        "rocketbun: invalid value 'many' for flag '-r': expected an integer 1-1024 (see rocketbun admin updateTopic --help)",
      ],
      [
        ["resetOffsetByTime", "-g", "G", "-t", "T", "-s", "yesterday"],
        "rocketbun: invalid value 'yesterday' for flag '-s': expected now, milliseconds or yyyy-MM-dd#HH:mm:ss:SSS (see rocketbun admin resetOffsetByTime --help)",
      ],
    ];
    for (const [args, message] of cases) {
      const [verb, ...rest] = args as [string, ...string[]];
      expect(await rb.admin(verb, ...rest)).toEqual({ code: 2, stdout: "", stderr: `${message}\n` });
    }
    expect(await rb.cli("admin", "topicList")).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "rocketbun: 'admin topicList' needs -n ADDR or NAMESRV_ADDR (see rocketbun admin topicList --help)\n",
    });
    expect(await rb.cli("admin", "topicList", "-n", "127.0.0.1:99999")).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "rocketbun: invalid value for flag '-n' (or NAMESRV_ADDR): \"127.0.0.1:99999\" is not a list of host:port separated by ';' (bad part \"127.0.0.1:99999\") (see rocketbun admin topicList --help)\n",
    });
  });

  test("an unreachable NameServer exits 1 naming the NameServer, for reads and for sends", async () => {
    for (const args of [["topicList"], ["sendMessage", "-t", "AdmDead", "-p", "x"]]) {
      const [verb, ...rest] = args as [string, ...string[]];
      const r = await rb.cli("admin", verb, "-n", "127.0.0.1:1", ...rest);
      expect([r.code, r.stdout]).toEqual([1, ""]);
      expect(r.stderr).toStartWith(
        `rocketbun: ${verb}: the NameServer 127.0.0.1:1 is unreachable (RPC_SEND_TO_CHANNEL_FAILED: connect to 127.0.0.1:1 failed`,
      );
    }
  });

  test("help lists every verb, and each verb's help its mqadmin flags", async () => {
    const help = await rb.cli("admin", "--help");
    const verbs = [
      "updateTopic",
      "deleteTopic",
      "topicList",
      "topicRoute",
      "topicStatus",
      "clusterList",
      "brokerStatus",
      "updateSubGroup",
      "deleteSubGroup",
      "consumerProgress",
      "consumerConnection",
      "producerConnection",
      "resetOffsetByTime",
      "queryMsgById",
      "queryMsgByKey",
      "queryMsgByOffset",
      "sendMessage",
      "consumeMessage",
      "getBrokerConfig",
      "updateBrokerConfig",
    ];
    expect(help.code).toBe(0);
    for (const v of verbs) expect(help.stdout).toContain(`    ${v} `);
    const verbHelp = await rb.cli("admin", "updateTopic", "--help");
    for (const flag of [
      "-n, --namesrvAddr ADDR",
      "-t, --topic TOPIC",
      "-b, --brokerAddr ADDR",
      "-c, --clusterName",
      "-r, --readQueueNums N",
      "-w, --writeQueueNums N",
      "-p, --perm PERM",
      "-o, --order BOOL",
      "--json",
    ])
      expect(verbHelp.stdout).toContain(flag);
  });
});
