/**
 * An orderly group seen by an admin, against `rocketbun start`: GET_CONSUMER_RUNNING_INFO (307)
 * forwarded by the broker to each member, and `rocketbun admin consumerProgress` /
 * `consumerConnection` naming the member that holds each queue's lock. A concurrent group's output
 * is unchanged.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createAdmin, createPushConsumer, MQClientError, type PushConsumer } from "../../src/client/index.ts";
import { fetchRunningInfo } from "../../src/client/running-info.ts";
import { ResponseCode } from "../../src/remoting/index.ts";
import { type AdminServer, adminOk, rows, startAdminServer } from "../cli/admin/server.ts";
import { silent } from "../support/silent.ts";
import { waitFor } from "./harness.ts";

let rb: AdminServer;

beforeAll(async () => {
  rb = await startAdminServer();
});

afterAll(async () => {
  await rb?.[Symbol.asyncDispose]();
});

const ok = (verb: string, ...args: string[]) => adminOk(rb, verb, ...args);

/** consumerProgress -g's columns; an orderly group adds "#Locked By". */
const PROGRESS_HEADER = [
  "#Topic",
  "#Broker Name",
  "#QID",
  "#Broker Offset",
  "#Consumer Offset",
  "#Diff",
  "#LastTime",
];

const consumer = (group: string, topic: string, orderly: boolean) =>
  createPushConsumer({
    namesrvAddr: rb.namesrvAddr,
    group,
    subscriptions: { [topic]: "*" },
    orderly,
    onMessage: () => {},
    log: silent,
  });

/** queueId → clientId of the member pulling it, for one topic. */
function owners(members: PushConsumer[], topic: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of members)
    for (const q of m.assignedQueues()) if (q.topic === topic) out[String(q.queueId)] = m.client.clientId;
  return out;
}

interface QueueLock {
  topic: string;
  queueId: number;
  clientId: string;
}

describe("an orderly group seen by an admin", () => {
  test("consumerConnection and consumerProgress name the client holding each queue's lock", async () => {
    await ok("updateTopic", "-t", "OrdAdm", "-c", rb.clusterName, "-r", "4", "-w", "4");
    const members = [await consumer("OrdAdmG", "OrdAdm", true), await consumer("OrdAdmG", "OrdAdm", true)];
    try {
      await waitFor(
        "the members split the queues",
        () =>
          Object.keys(owners(members, "OrdAdm")).length === 4 &&
          members.every((m) => m.assignedQueues().some((q) => q.topic === "OrdAdm")),
      );
      const expected = owners(members, "OrdAdm");
      const locked = await waitFor("every queue's lock reported", async () => {
        const r = await rb.admin("consumerConnection", "-g", "OrdAdmG", "--json");
        if (r.code !== 0) return null;
        const locks = (JSON.parse(r.stdout) as { queueLocks?: QueueLock[] }).queueLocks ?? [];
        const mine = locks.filter((l) => l.topic === "OrdAdm");
        return mine.length === 4 ? mine : null;
      });
      expect(Object.fromEntries(locked.map((l) => [String(l.queueId), l.clientId]))).toEqual(expected);

      const text = rows(await ok("consumerConnection", "-g", "OrdAdmG"));
      expect(text).toContainEqual(["Orderly: queue locks held"]);
      expect(text).toContainEqual(["#Topic", "#Broker Name", "#QID", "#Locked By"]);
      expect(text).toContainEqual(["OrdAdm", rb.brokerName, "2", expected["2"]!]);

      const progress = rows(await ok("consumerProgress", "-g", "OrdAdmG", "-t", "OrdAdm"));
      expect(progress[0]).toEqual([...PROGRESS_HEADER, "#Locked By"]);
      expect(progress.slice(1, 5).map((r) => [r[2], r.at(-1)])).toEqual(
        ["0", "1", "2", "3"].map((q) => [q, expected[q]]),
      );
    } finally {
      for (const m of members) await m.shutdown();
    }
  });

  test("GET_CONSUMER_RUNNING_INFO through the broker: the orderly flag and the locks; an unknown client is not online", async () => {
    await ok("updateTopic", "-t", "OrdRun", "-c", rb.clusterName, "-r", "2", "-w", "2");
    const orderly = await consumer("OrdRunG", "OrdRun", true);
    const concurrent = await consumer("ConcRunG", "OrdRun", false);
    const admin = await createAdmin({ namesrvAddr: rb.namesrvAddr, log: silent });
    try {
      await waitFor("both queues locked", async () => {
        const info = await fetchRunningInfo(admin.client, "OrdRunG", orderly.client.clientId, 2000).catch(
          () => null,
        );
        return info?.mqTable.filter(([mq, pq]) => mq.topic === "OrdRun" && pq.locked).length === 2;
      });
      const info = await fetchRunningInfo(admin.client, "OrdRunG", orderly.client.clientId, 2000);
      const conc = await fetchRunningInfo(admin.client, "ConcRunG", concurrent.client.clientId, 2000);
      const view = (i: typeof info) => ({
        orderly: i.properties.PROP_CONSUMEORDERLY,
        type: i.properties.PROP_CONSUME_TYPE,
        queues: i.mqTable
          .filter(([mq]) => mq.topic === "OrdRun")
          .map(([mq, pq]) => [mq.queueId, pq.locked, (pq.lastLockTimestamp ?? 0) > 0, pq.droped]),
      });
      expect({ orderly: view(info), concurrent: view(conc) }).toEqual({
        orderly: {
          orderly: "true",
          type: "CONSUME_PASSIVELY",
          queues: [
            [0, true, true, false],
            [1, true, true, false],
          ],
        },
        concurrent: {
          orderly: "false",
          type: "CONSUME_PASSIVELY",
          queues: [
            [0, false, false, false],
            [1, false, false, false],
          ],
        },
      });
      const unknown = await fetchRunningInfo(admin.client, "OrdRunG", "10.0.0.1@nobody", 2000).catch(
        (e) => e,
      );
      expect(unknown instanceof MQClientError ? [unknown.code, unknown.remark] : unknown).toEqual([
        ResponseCode.SYSTEM_ERROR,
        "The Consumer <OrdRunG> <10.0.0.1@nobody> not online",
      ]);
      const progress = rows(await ok("consumerProgress", "-g", "ConcRunG", "-t", "OrdRun"));
      expect(progress[0]).toEqual(PROGRESS_HEADER);
    } finally {
      await admin.shutdown();
      await orderly.shutdown();
      await concurrent.shutdown();
    }
  });
});
