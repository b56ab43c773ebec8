/**
 * The standalone gateway in front of a broker older than RocketMQ 5.0 (no timer messages): a
 * produce with delayMs or deliverAt is refused with 501 instead of being delivered at once, while
 * plain produces go through. The old cluster is one TCP server answering as its NameServer (the
 * route) and as its broker (heartbeats and sends), every answer carrying MQVersion 409 (V4_9_8)
 * as an Apache 4.9 broker's do.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Cluster } from "../../gateway/cluster.ts";
import { createClientCluster } from "../../gateway/cluster-client.ts";
import { GatewayProblem } from "../../gateway/errors.ts";
import { SendMessageResponseHeader } from "../../src/protocol/headers/send.ts";
import { encodeTopicRouteData } from "../../src/protocol/route/topic-route-data.ts";
import { RemotingCommand, RemotingServer, RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { silent } from "../support/silent.ts";

const V4_9_8 = 409;
const V5_3_3 = 479;

async function oldCluster(version: number) {
  // The endpoint stamps `version` on every answer, as a Java broker writes its MQVersion.
  const server = new RemotingServer({
    name: "old-rocketmq",
    listenPort: 0,
    bindAddress: "127.0.0.1",
    version,
    log: silent,
  });
  await server.start();
  const addr = `127.0.0.1:${server.port}`;
  const sent: string[] = [];
  const route = {
    orderTopicConf: null,
    queueDatas: [{ brokerName: "old-a", readQueueNums: 1, writeQueueNums: 1, perm: 6, topicSysFlag: 0 }],
    brokerDatas: [{ cluster: "OldCluster", brokerName: "old-a", brokerAddrs: new Map([[0, addr]]) }],
    filterServerTable: new Map(),
  };
  const ok = (ext: Record<string, string> | null = null, body: Uint8Array | null = null) =>
    RemotingCommand.response(ResponseCode.SUCCESS, null, ext, body);
  server.registry.register(RequestCode.GET_ROUTEINFO_BY_TOPIC, () =>
    ok(null, encodeTopicRouteData(route as never, "fastjson")),
  );
  server.registry.register(RequestCode.SEND_MESSAGE_V2, (req) => {
    sent.push(String(req.extFields?.b));
    const queueOffset = sent.length - 1;
    return ok(
      SendMessageResponseHeader.encode({
        msgId: "7F00000100002A9F0000000000000000",
        queueId: 0,
        queueOffset,
      }),
    );
  });
  // Heartbeats and anything else: accepted.
  server.registry.setDefault(() => ok());
  const cluster = await createClientCluster({
    namesrvAddr: addr,
    producerGroup: "GW_OLD_P",
    replayGroup: "GW_OLD_R",
    sendTimeoutMs: 3000,
    messageBytesMax: 4 * 1024 * 1024,
    log: silent,
  });
  return { server, cluster, sent };
}

describe("delayed produces need a broker with timer messages", () => {
  let old: { server: RemotingServer; cluster: Cluster; sent: string[] };
  let current: { server: RemotingServer; cluster: Cluster; sent: string[] };
  beforeAll(async () => {
    old = await oldCluster(V4_9_8);
    current = await oldCluster(V5_3_3);
  });
  afterAll(async () => {
    for (const c of [old, current]) {
      await c?.cluster.close();
      await c?.server.stop();
    }
  });

  test("a 4.9 broker: plain produce stored, delayMs and deliverAt refused with 501 naming the capability", async () => {
    const body = new TextEncoder().encode("x");
    const plain = await old.cluster.send("Orders", { body }, {});
    expect(plain.status).toBe("SEND_OK");
    for (const delayed of [
      { body, delayMs: 5000 },
      { body, deliverAtMs: Date.now() + 5000 },
    ]) {
      const refused = await old.cluster.send("Orders", delayed, {}).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(GatewayProblem);
      const p = (refused as GatewayProblem).init;
      expect({ status: p.status, slug: p.slug, capability: p.extra?.missingCapability }).toEqual({
        status: 501,
        slug: "timer-unsupported",
        capability: "timer messages (TIMER_DELAY_MS / TIMER_DELIVER_MS, RocketMQ 5.0)",
      });
      expect(p.detail).toContain("broker old-a (MQVersion 409) is older than RocketMQ 5.0");
    }
    // Only the plain produce reached the broker.
    expect(old.sent).toEqual(["Orders"]);
  });

  test("a 5.x broker takes the delayed produce", async () => {
    const r = await current.cluster.send(
      "Orders",
      { body: new TextEncoder().encode("x"), delayMs: 5000 },
      {},
    );
    expect(r.status).toBe("SEND_OK");
    expect(current.sent).toEqual(["Orders"]);
  });
});
