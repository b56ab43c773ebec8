/**
 * The mqadmin verbs added for operators (issue 20), `admin help`, verb lookup and the errors that
 * name their cause, and `produce` / `consume`, each as a subprocess against one `rocketbun start`.
 * Each test uses its own topic and group names.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createPushConsumer } from "../../../src/client/index.ts";
import { waitFor } from "../../client/harness.ts";
import { silent } from "../../support/silent.ts";
import { type AdminServer, adminOk, rows, startAdminServer } from "./server.ts";

let rb: AdminServer;

beforeAll(async () => {
  rb = await startAdminServer();
});

afterAll(async () => {
  await rb?.[Symbol.asyncDispose]();
});

const ok = (verb: string, ...args: string[]) => adminOk(rb, verb, ...args);

async function json<T = unknown>(verb: string, ...args: string[]): Promise<T> {
  return JSON.parse(await ok(verb, ...args, "--json")) as T;
}

async function createTopic(topic: string, queues = 2): Promise<void> {
  await ok("updateTopic", "-t", topic, "-c", rb.clusterName, "-r", String(queues), "-w", String(queues));
}

/** `rocketbun produce` of `count` messages; its summary line. */
async function produce(topic: string, count: number, ...extra: string[]): Promise<string> {
  const r = await rb.cli("produce", "-n", rb.namesrvAddr, "-t", topic, "-c", String(count), ...extra);
  expect(r.code).toBe(0);
  return r.stdout;
}

describe("admin: verbs as mqadmin finds them", () => {
  test("verbs are case-insensitive and 'admin help <verb>' prints the verb's help", async () => {
    await createTopic("OpsCase");
    expect((await rb.admin("TOPICLIST")).stdout.split("\n")).toContain("OpsCase");
    expect((await rb.admin("topiclist", "--json")).code).toBe(0);
    const help = await rb.cli("admin", "help", "topicroute");
    expect([help.code, help.stdout.split("\n")[0]]).toEqual([
      0,
      "Usage: rocketbun admin topicRoute -n ADDR -t TOPIC [-l] [--ak KEY --sk SECRET] [--json]",
    ]);
    const adminHelp = await rb.cli("admin", "help");
    expect([adminHelp.code, adminHelp.stdout]).toEqual([0, expect.stringContaining("    topicClusterList ")]);
  });

  test("an unknown verb is a usage error with the nearest verb suggested", async () => {
    expect(await rb.admin("topicLst")).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "rocketbun: unknown admin verb 'topicLst' (did you mean topicList?) (see rocketbun admin --help)\n",
    });
    expect(await rb.cli("admin", "help", "clusterlsit")).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "rocketbun: unknown admin verb 'clusterlsit' (did you mean clusterList?) (see rocketbun admin --help)\n",
    });
    expect((await rb.admin("frobnicate")).stderr).toBe(
      "rocketbun: unknown admin verb 'frobnicate' (see rocketbun admin --help)\n",
    );
  });

  test("the help lists every verb added for operators", async () => {
    const help = (await rb.cli("admin", "--help")).stdout;
    for (const verb of [
      "topicClusterList",
      "updateTopicPerm",
      "consumerStatus",
      "getConsumerStatus",
      "brokerConsumeStats",
      "queryMsgByUniqueKey",
      "printMsg",
      "printMsgByQueue",
      "sendMsgStatus",
      "skipAccumulatedMessage",
      "cloneGroupOffset",
      "getConsumerConfig",
      "wipeWritePerm",
      "addWritePerm",
      "getNamesrvConfig",
      "updateNamesrvConfig",
      "updateKvConfig",
      "deleteKvConfig",
      "statsAll",
      "clusterRT",
      "allocateMQ",
      "checkMsgSendRT",
      "queryCq",
      "updateOrderConf",
      "cleanExpiredCQ",
      "deleteExpiredCommitLog",
      "cleanUnusedTopic",
    ])
      expect(help).toContain(`    ${verb} `);
  });
});

describe("admin: topic verbs", () => {
  test("topicClusterList, updateTopicPerm and allocateMQ", async () => {
    await createTopic("OpsPerm", 3);
    expect(await ok("topicClusterList", "-t", "OpsPerm")).toBe(`${rb.clusterName}\n`);
    expect(await ok("updateTopicPerm", "-t", "OpsPerm", "-p", "4", "-b", rb.brokerAddr)).toBe(
      `update topic perm from 6 to 4 in ${rb.brokerAddr} success.\n`,
    );
    const route = JSON.parse(await ok("topicRoute", "-t", "OpsPerm"));
    expect(route.queueDatas[0].perm).toBe(4);
    expect(await ok("updateTopicPerm", "-t", "OpsPerm", "-p", "4", "-b", rb.brokerAddr)).toBe(
      "new perm equals to the old one!\n",
    );
    expect(await json("updateTopicPerm", "-t", "OpsPerm", "-p", "6", "-c", rb.clusterName)).toEqual({
      topic: "OpsPerm",
      perm: 6,
      changed: [{ brokerAddr: rb.brokerAddr, brokerName: rb.brokerName, oldPerm: 4 }],
    });
    expect((await rb.admin("updateTopicPerm", "-t", "OpsPerm", "-p", "6")).code).toBe(2);

    const q = (queueId: number) => ({ topic: "OpsPerm", brokerName: rb.brokerName, queueId });
    expect(JSON.parse(await ok("allocateMQ", "-t", "OpsPerm", "-i", "10.0.0.2,10.0.0.1"))).toEqual({
      result: { "10.0.0.2": [q(2)], "10.0.0.1": [q(0), q(1)] },
    });
  });

  test("updateOrderConf puts, gets and deletes a topic's order conf", async () => {
    expect(await ok("updateOrderConf", "-t", "OpsOrder", "-m", "put", "-v", `${rb.brokerName}:4`)).toBe(
      `update orderConf success. topic=[OpsOrder], orderConf=[${rb.brokerName}:4]\n`,
    );
    expect(await json("updateOrderConf", "-t", "OpsOrder", "-m", "get")).toEqual({
      topic: "OpsOrder",
      orderConf: `${rb.brokerName}:4`,
    });
    expect(await ok("updateOrderConf", "-t", "OpsOrder", "-m", "delete")).toBe(
      "delete orderConf success. topic=[OpsOrder]\n",
    );
    expect(await rb.admin("updateOrderConf", "-t", "OpsOrder", "-m", "get")).toEqual({
      code: 1,
      stdout: "",
      stderr: "rocketbun: updateOrderConf: topic OpsOrder has no order conf\n",
    });
    const bad = await rb.admin("updateOrderConf", "-t", "OpsOrder", "-m", "put", "-v", "nonsense");
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("for flag '-v'")]);
  });
});

describe("admin: NameServer verbs", () => {
  test("KV config, NameServer config and a broker's write permission, on every NameServer of -n", async () => {
    expect(
      await ok("updateKvConfig", "-s", "ORDER_TOPIC_CONFIG", "-k", "OpsKv", "-v", `${rb.brokerName}:2`),
    ).toBe("create or update kv config to namespace success.\n");
    // updateOrderConf reads the same namespace.
    expect(await json("updateOrderConf", "-t", "OpsKv", "-m", "get")).toEqual({
      topic: "OpsKv",
      orderConf: `${rb.brokerName}:2`,
    });
    expect(await ok("deleteKvConfig", "-s", "ORDER_TOPIC_CONFIG", "-k", "OpsKv")).toBe(
      "delete kv config from namespace success.\n",
    );
    expect((await rb.admin("updateOrderConf", "-t", "OpsKv", "-m", "get")).code).toBe(1);

    expect(await ok("updateNamesrvConfig", "-k", "orderMessageEnable", "-v", "true")).toBe(
      `update name server config success![${rb.namesrvAddr}]\norderMessageEnable : true\n`,
    );
    const config = await ok("getNamesrvConfig");
    expect(config.split("\n")[0]).toBe(`============${rb.namesrvAddr}============`);
    expect(config).toMatch(/\norderMessageEnable += {2}true\n/);
    expect(
      (await json<Record<string, Record<string, string>>>("getNamesrvConfig"))[rb.namesrvAddr]
        ?.orderMessageEnable,
    ).toBe("true");

    await createTopic("OpsWipe");
    expect(await ok("wipeWritePerm", "-b", rb.brokerName)).toMatch(
      new RegExp(
        `^wipe write perm of broker\\[${rb.brokerName}\\] in name server\\[${rb.namesrvAddr}\\] OK, \\d+\n$`,
      ),
    );
    expect(JSON.parse(await ok("topicRoute", "-t", "OpsWipe")).queueDatas[0].perm).toBe(4);
    expect(await ok("addWritePerm", "-b", rb.brokerName)).toMatch(
      new RegExp(
        `^add write perm of broker\\[${rb.brokerName}\\] in name server\\[${rb.namesrvAddr}\\] OK, \\d+\n$`,
      ),
    );
    expect(JSON.parse(await ok("topicRoute", "-t", "OpsWipe")).queueDatas[0].perm).toBe(6);
  });
});

describe("admin: group verbs", () => {
  test("a consumed group's progress, stats, clone, skip and config; an unknown group fails", async () => {
    await createTopic("OpsGrp");
    expect(await produce("OpsGrp", 10)).toMatch(/^sent 10 messages to OpsGrp in [\d.]+ s \(\d+\/s\)/);
    const consumed = await rb.cli("consume", "-n", rb.namesrvAddr, "-t", "OpsGrp", "-g", "OpsG", "-c", "10");
    expect([consumed.code, consumed.stdout]).toEqual([
      0,
      expect.stringMatching(/^consumed 10 messages of OpsGrp as group OpsG in /),
    ]);
    const progress = await json<{ queues: { topic: string; consumerOffset: number }[]; diffTotal: number }>(
      "consumerProgress",
      "-g",
      "OpsG",
      "-t",
      "OpsGrp",
    );
    expect([progress.queues.reduce((n, q) => n + q.consumerOffset, 0), progress.diffTotal]).toEqual([10, 0]);

    const stats = rows(await ok("brokerConsumeStats", "-b", rb.brokerAddr));
    expect(stats[0]).toEqual([
      "#Topic",
      "#Group",
      "#Broker Name",
      "#QID",
      "#Broker Offset",
      "#Consumer Offset",
      "#Diff",
      "#LastTime",
    ]);
    expect(stats.filter((r) => r[0] === "OpsGrp" && r[1] === "OpsG").map((r) => r[6])).toEqual(["0", "0"]);
    expect(stats.at(-1)).toEqual([expect.stringMatching(/^Diff Total: \d+$/)]);

    expect(await ok("cloneGroupOffset", "-s", "OpsG", "-d", "OpsClone", "-t", "OpsGrp", "-o", "true")).toBe(
      "clone group offset success. srcGroup[OpsG], destGroup=[OpsClone], topic[OpsGrp]\n",
    );
    const cloned = await json<{ queues: { consumerOffset: number }[] }>(
      "consumerProgress",
      ...["-g", "OpsClone", "-t", "OpsGrp"],
    );
    expect(cloned.queues.reduce((n, q) => n + q.consumerOffset, 0)).toBe(10);

    await produce("OpsGrp", 4);
    const skipped = rows(await ok("skipAccumulatedMessage", "-g", "OpsG", "-t", "OpsGrp"));
    expect(skipped[0]).toEqual(["#brokerName", "#queueId", "#offset"]);
    expect(skipped.slice(1).reduce((n, r) => n + Number(r[2]), 0)).toBe(14);

    const config = await ok("getConsumerConfig", "-g", "OpsG");
    expect(config.split("\n")[0]).toBe(
      `=============================${rb.clusterName}:${rb.brokerName}=============================`,
    );
    expect(config).toMatch(/\ngroupName += {2}OpsG\n/);

    for (const args of [
      ["-g", "OpsNobody"],
      ["-g", "OpsNobody", "-t", "OpsGrp"],
    ]) {
      const unknown = await rb.admin("consumerProgress", ...args);
      expect([unknown.code, unknown.stdout]).toEqual([1, ""]);
      expect(unknown.stderr).toMatch(/^rocketbun: consumerProgress: .*group OpsNobody/);
    }
    expect(await rb.admin("getConsumerConfig", "-g", "OpsNobody")).toEqual({
      code: 1,
      stdout: "",
      stderr: "rocketbun: getConsumerConfig: subscription group OpsNobody does not exist on any master\n",
    });
  });

  test("consumerStatus shows each online member, and one member in detail with -i", async () => {
    await createTopic("OpsStatus");
    const consumer = await createPushConsumer({
      namesrvAddr: rb.namesrvAddr,
      group: "OpsStatusG",
      subscriptions: { OpsStatus: "*" },
      onMessage: () => {},
      log: silent,
    });
    try {
      const status = await waitFor("the member holds its queues", async () => {
        const r = await rb.admin("consumerStatus", "-g", "OpsStatusG", "--json");
        const s = r.code === 0 ? JSON.parse(r.stdout) : null;
        // The topic's two queues and the group's retry queue.
        return s?.members?.[0]?.info?.mqTable?.length === 3 ? s : null;
      });
      expect([status.members.map((m: { clientId: string }) => m.clientId), status.rebalanceOk]).toEqual([
        [consumer.client.clientId],
        true,
      ]);
      const table = rows(await ok("consumerStatus", "-g", "OpsStatusG"));
      expect(table[0]).toEqual(["#Index", "#ClientId", "#Version", "#Queues"]);
      expect(table[1]).toEqual(["1", consumer.client.clientId, "V5_3_3", "3"]);
      expect(table).toContainEqual(["Rebalance OK"]);
      const one = await ok("consumerStatus", "-g", "OpsStatusG", "-i", consumer.client.clientId);
      expect(one).toContain("001 Topic: OpsStatus SubExpression: *");
    } finally {
      await consumer.shutdown();
    }
  });
});

describe("admin: getConsumerStatus", () => {
  test("getConsumerStatus shows a live push consumer's offsets of the topic's queues, which the broker asks it for", async () => {
    await createTopic("OpsCStatus");
    let received = 0;
    const consumer = await createPushConsumer({
      namesrvAddr: rb.namesrvAddr,
      group: "OpsCStatusG",
      subscriptions: { OpsCStatus: "*" },
      onMessage: (msgs) => {
        received += msgs.length;
      },
      log: silent,
    });
    type Row = { clientId: string; topic: string; brokerName: string; queueId: number; offset: number };
    const status = async () => {
      const r = await rb.admin("getConsumerStatus", "-g", "OpsCStatusG", "-t", "OpsCStatus", "--json");
      return r.code === 0 ? (JSON.parse(r.stdout) as Row[]) : null;
    };
    try {
      await waitFor("the consumer holds both queues", async () => (await status())?.length === 2);
      await produce("OpsCStatus", 4);
      const rowsAfter = await waitFor("the consumer's offsets moved past the 4 messages", async () => {
        const s = await status();
        return received === 4 && s?.reduce((n, r) => n + r.offset, 0) === 4 ? s : null;
      });
      const id = consumer.client.clientId;
      expect(rowsAfter.map((r) => [r.clientId, r.topic, r.brokerName, r.queueId])).toEqual([
        [id, "OpsCStatus", rb.brokerName, 0],
        [id, "OpsCStatus", rb.brokerName, 1],
      ]);
      const text = rows(await ok("getConsumerStatus", "-g", "OpsCStatusG", "-t", "OpsCStatus", "-i", id));
      expect(text[0]).toEqual([
        `get consumer status from client. group=OpsCStatusG, topic=OpsCStatus, originClientId=${id}`,
      ]);
      expect(text[1]).toEqual(["#clientId", "#brokerName", "#queueId", "#offset"]);
      expect(text.slice(2).map((r) => r.slice(0, 3))).toEqual([
        [id, rb.brokerName, "0"],
        [id, rb.brokerName, "1"],
      ]);
      // Another client id: nobody is asked, nothing is shown.
      expect(
        await json("getConsumerStatus", "-g", "OpsCStatusG", "-t", "OpsCStatus", "-i", "10.0.0.9@none"),
      ).toEqual([]);
    } finally {
      await consumer.shutdown();
    }
  });
});

describe("admin: message verbs", () => {
  test("queryMsgById takes an offset id alone; queryMsgByUniqueKey, printMsg and printMsgByQueue", async () => {
    await createTopic("OpsMsg");
    const sent = await json<{ msgId: string; offsetMsgId: string }>(
      "sendMessage",
      ...["-t", "OpsMsg", "-p", "hello", "-c", "TagB", "-b", rb.brokerName, "-i", "0"],
    );
    await produce("OpsMsg", 3, "--tags", "TagA");
    const byOffsetId = await ok("queryMsgById", "-i", sent.offsetMsgId, "-f", "UTF-8");
    expect(byOffsetId).toContain(`MsgId:            ${sent.msgId}\n`);
    expect(byOffsetId).toContain("Message Body:     hello\n");
    const uniqueWithoutTopic = await rb.admin("queryMsgById", "-i", sent.msgId);
    expect([uniqueWithoutTopic.code, uniqueWithoutTopic.stderr]).toEqual([
      2,
      `rocketbun: '${sent.msgId}' is not an offset message id (one carries its broker's address): give the topic with -t to look up a unique id (see rocketbun admin queryMsgById --help)\n`,
    ]);
    expect((await json<{ msgId: string }>("queryMsgById", "-i", sent.msgId, "-t", "OpsMsg")).msgId).toBe(
      sent.msgId,
    );

    const unique = await json<{ msgId: string; tags: string }>(
      "queryMsgByUniqueKey",
      ...["-t", "OpsMsg", "-i", sent.msgId],
    );
    expect([unique.msgId, unique.tags]).toEqual([sent.msgId, "TagB"]);
    expect((await rb.admin("queryMsgByUniqueKey", "-t", "OpsMsg", "-i", "0".repeat(32))).code).toBe(1);

    const printed = (await ok("printMsg", "-t", "OpsMsg", "-s", "TagB")).trimEnd().split("\n");
    expect(printed.filter((l) => l.startsWith("MSGID: "))).toEqual([
      expect.stringMatching(new RegExp(`^MSGID: ${sent.msgId} .* BODY: hello$`)),
    ]);
    expect(printed[0]).toMatch(/^minOffset=0, maxOffset=\d+, MessageQueue \[topic=OpsMsg, /);
    expect(printed.at(-1)).toBe("--------------------------------------------------------");
    const all = await json<{ messages: unknown[] }[]>("printMsg", "-t", "OpsMsg");
    expect(all.reduce((n, q) => n + q.messages.length, 0)).toBe(4);

    const byTag = await ok("printMsgByQueue", "-t", "OpsMsg", "-a", rb.brokerName, "-i", "0", "-f", "true");
    expect(byTag.split("\n")).toContain(`Tag: ${"TagB".padEnd(30)} Count: 1`);
  });
});

describe("admin: send probes", () => {
  test("sendMsgStatus, checkMsgSendRT and clusterRT send and time their probes", async () => {
    const status = (await ok("sendMsgStatus", "-b", rb.brokerName, "-c", "3")).trimEnd().split("\n");
    expect(status).toEqual(
      Array(3).fill(
        expect.stringMatching(
          new RegExp(
            `^rt=\\d+ms, SendResult=\\[sendStatus=SEND_OK, brokerName=${rb.brokerName}, queueId=0\\]$`,
          ),
        ),
      ),
    );
    await createTopic("OpsRt");
    const rt = rows(await ok("checkMsgSendRT", "-t", "OpsRt", "-a", "3", "-s", "64"));
    expect(rt[0]).toEqual(["#Broker Name", "#QID", "#Send Result", "#RT"]);
    expect(rt.slice(1, 4).map((r) => [r[0], r[2]])).toEqual(Array(3).fill([rb.brokerName, "SEND_OK"]));
    expect(rt.at(-1)?.[0]).toMatch(/^Avg RT: \d+\.\d\d$/);
    const cluster = await json<
      { clusterName: string; brokerName: string; successCount: number; failCount: number }[]
    >("clusterRT", "-a", "3");
    expect(cluster.map((r) => [r.clusterName, r.brokerName, r.successCount, r.failCount])).toEqual([
      [rb.clusterName, rb.brokerName, 3, 0],
    ]);
  });
});

describe("admin: broker verbs", () => {
  test("statsAll, queryCq and the clean-ups", async () => {
    await createTopic("OpsStats");
    await produce("OpsStats", 3);
    // The broker samples its statistics every 10 s (as Java's does): the puts show from the next sample.
    let stats = rows(await ok("statsAll", "-t", "OpsStats"));
    for (const until = Date.now() + 15_000; stats[1]?.[3] !== "3" && Date.now() < until; ) {
      await Bun.sleep(500);
      stats = rows(await ok("statsAll", "-t", "OpsStats"));
    }
    expect(stats[0]).toEqual([
      "#Topic",
      "#Consumer Group",
      "#Accumulation",
      "#InTPS",
      "#OutTPS",
      "#InMsg24Hour",
      "#OutMsg24Hour",
    ]);
    // No consumer group: accumulation 0, the put rate over the sampled span, 3 messages today.
    expect([stats[1]?.[0], stats[1]?.[1], stats[1]?.[3], stats[1]?.[4]]).toEqual([
      "OpsStats",
      "0",
      "3",
      "NO_CONSUMER",
    ]);
    expect(Number(stats[1]?.[2])).toBeGreaterThan(0);
    const cq = await json<{ maxQueueIndex: number; queueData: { physicSize: number }[] }[]>(
      "queryCq",
      ...["-t", "OpsStats", "-q", "0", "-i", "0", "-c", "2"],
    );
    expect(cq).toHaveLength(1);
    expect(cq[0]?.queueData.length).toBe(Math.min(2, cq[0]?.maxQueueIndex ?? 0));
    const cqText = await ok("queryCq", "-t", "OpsStats", "-q", "0", "-i", "0");
    expect(cqText).toContain(`============${rb.brokerAddr}============\nQueue data: \nmax: `);
    expect((await rb.admin("queryCq", "-t", "OpsStats", "-q", "7", "-i", "0")).code).toBe(1);

    expect(await ok("cleanExpiredCQ")).toBe("success\n");
    expect(await ok("deleteExpiredCommitLog", "-b", rb.brokerAddr)).toBe("success\n");
    expect(await ok("cleanUnusedTopic", "-c", rb.clusterName)).toBe("success\n");
    // The topic still has its queues: only topics without a config lose theirs.
    expect((await json<unknown[]>("queryCq", "-t", "OpsStats", "-q", "0", "-i", "0"))[0]).toBeDefined();
  });

  test("updateBrokerConfig changes a run-time key; a typo or a restart-only key is named as such", async () => {
    expect(
      await ok("updateBrokerConfig", "-b", rb.brokerAddr, "-k", "shortPollingTimeMills", "-v", "500"),
    ).toBe(`broker ${rb.brokerAddr}: shortPollingTimeMills=500 updated\n`);
    const config = await json<Record<string, string>>("getBrokerConfig", "-b", rb.brokerAddr);
    expect(config.shortPollingTimeMills).toBe("500");
    const typo = await rb.admin(
      "updateBrokerConfig",
      "-b",
      rb.brokerAddr,
      "-k",
      "brokerPermision",
      "-v",
      "6",
    );
    expect([typo.code, typo.stderr]).toEqual([
      1,
      "rocketbun: updateBrokerConfig: NO_PERMISSION: unknown config key 'brokerPermision' (did you mean brokerPermission?) " +
        `[UPDATE_BROKER_CONFIG to ${rb.brokerAddr}]\n`,
    ]);
    const restart = await rb.admin("updateBrokerConfig", "-b", rb.brokerAddr, "-k", "listenPort", "-v", "1");
    expect([restart.code, restart.stderr]).toEqual([
      1,
      expect.stringContaining(
        "NO_PERMISSION: 'listenPort' cannot be changed at run time: set it in the broker's config file and restart",
      ),
    ]);
    const badValue = await rb.admin(
      "updateBrokerConfig",
      "-b",
      rb.brokerAddr,
      "-k",
      "longPollingEnable",
      "-v",
      "maybe",
    );
    expect([badValue.code, badValue.stderr]).toEqual([
      1,
      expect.stringContaining('INVALID_PARAMETER: longPollingEnable: "maybe" is not a bool (true or false)'),
    ]);
  });
});

/** Runs `rocketbun <args>` until its stderr shows a rate line, then sends SIGINT; its result. */
async function interrupted(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, "src/cli/main.ts", ...args], {
    cwd: `${import.meta.dir}/../../..`,
    env: { PATH: process.env.PATH ?? "", ROCKETBUN_LOG_LEVEL: "silent" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdout = new Response(proc.stdout).text();
  const reader = proc.stderr.getReader();
  let stderr = "";
  while (!/TPS: /.test(stderr)) {
    const { value, done } = await reader.read();
    if (done) break;
    stderr += new TextDecoder().decode(value);
  }
  proc.kill("SIGINT");
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    stderr += new TextDecoder().decode(value);
  }
  return { code: await proc.exited, stdout: await stdout, stderr };
}

describe("produce and consume", () => {
  test("without -c they run until SIGINT, printing a rate line each second, then a summary and exit 0", async () => {
    await createTopic("OpsSig");
    const p = await interrupted(["produce", "-n", rb.namesrvAddr, "-t", "OpsSig", "-w", "2"]);
    expect([p.code, p.stderr.split("\n")[0]]).toEqual([
      0,
      expect.stringMatching(
        /^Send TPS: \d+ \| Avg RT\(ms\): [\d.]+ \| Max RT\(ms\): [\d.]+ \| Sent: \d+ \| Failed: 0$/,
      ),
    ]);
    const sent = Number(/^sent (\d+) messages to OpsSig /.exec(p.stdout)?.[1]);
    expect(sent).toBeGreaterThan(0);
    const c = await interrupted(["consume", "-n", rb.namesrvAddr, "-t", "OpsSig", "-g", "OpsSigG"]);
    expect([c.code, c.stderr.split("\n")[0], c.stdout]).toEqual([
      0,
      expect.stringMatching(
        /^Consume TPS: \d+ \| Avg born-to-consume\(ms\): [\d.]+ \| Max\(ms\): \d+ \| Total: \d+$/,
      ),
      expect.stringMatching(/^consumed \d+ messages of OpsSig as group OpsSigG in /),
    ]);
  });

  test("run for a bounded count and exit 0 with a summary; bad flags exit 2; a dead NameServer is named", async () => {
    await createTopic("OpsPc");
    expect(await produce("OpsPc", 25, "-s", "300", "--tags", "TagP", "-w", "4")).toMatch(
      /^sent 25 messages to OpsPc in [\d.]+ s \(\d+\/s\), avg RT [\d.]+ ms, max RT [\d.]+ ms, 0 failed\n$/,
    );
    const consumed = await rb.cli(
      "consume",
      ...["-n", rb.namesrvAddr, "-t", "OpsPc", "-g", "OpsPcG", "-c", "25", "--tags", "TagP", "--print"],
    );
    expect(consumed.code).toBe(0);
    const lines = consumed.stdout.trimEnd().split("\n");
    expect(lines.filter((l) => / tags=TagP /.test(l))).toHaveLength(25);
    expect(lines.at(-1)).toMatch(/^consumed 25 messages of OpsPc as group OpsPcG in /);

    expect(await rb.cli("produce", "-n", rb.namesrvAddr, "-t", "OpsPc", "-c", "many")).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "rocketbun: invalid value 'many' for flag '-c': expected an integer 1-9007199254740991 (see rocketbun produce --help)\n",
    });
    expect((await rb.cli("consume", "-n", rb.namesrvAddr)).stderr).toBe(
      "rocketbun: 'consume' needs -t (see rocketbun consume --help)\n",
    );
    expect(await rb.cli("consume", "-n", rb.namesrvAddr, "-t", "OpsNoSuchTopic", "-c", "1")).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "rocketbun: consume: topic OpsNoSuchTopic has no route: it does not exist on any broker of the NameServer\n",
    });
    const deadConsumer = await rb.cli("consume", "-n", "127.0.0.1:1", "-t", "OpsPc", "-c", "1");
    expect([deadConsumer.code, deadConsumer.stderr]).toEqual([
      1,
      expect.stringContaining("rocketbun: consume: the NameServer 127.0.0.1:1 is unreachable"),
    ]);
    const dead = await rb.cli("produce", "-n", "127.0.0.1:1", "-t", "OpsPc", "-c", "3");
    expect([dead.code, dead.stderr]).toEqual([
      1,
      expect.stringContaining("rocketbun: produce: last failure: the NameServer 127.0.0.1:1 is unreachable"),
    ]);
  });
});
