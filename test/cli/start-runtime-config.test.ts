import { expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseProperties } from "../../src/config/properties.ts";
import { RemotingClient, RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { request } from "../support/frames.ts";
import { startRocketbun, waitFor } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

/** What the operator's file says: broker keys and NameServer keys side by side. */
const OPERATOR_FILE = {
  brokerName: "broker-rt",
  brokerClusterName: "ClusterRT",
  flushDiskType: "SYNC_FLUSH",
  orderMessageEnable: "false",
  enableTopicList: "true",
};

function configOf(body: Uint8Array | null): Map<string, string> {
  return parseProperties(new TextDecoder().decode(body ?? new Uint8Array()));
}

test("under start -c FILE, run-time config changes never touch FILE, are kept per role and survive a restart", async () => {
  await using rb = await startRocketbun({ brokerConf: OPERATOR_FILE, name: "rocketbun-runtime" });
  const file = join(rb.home, "broker.conf");
  const original = await readFile(file);
  const c = new RemotingClient({ name: "it-runtime", log: silent });
  try {
    const call = (addr: string, code: number, body?: string) =>
      c.invoke(addr, request(code, null, body === undefined ? null : utf8(body)));
    const answer = async (addr: string, code: number, body: string) => {
      const r = await call(addr, code, body);
      return { code: r.code, remark: r.remark };
    };

    expect({
      namesrv: await answer(
        rb.namesrvAddr,
        RequestCode.UPDATE_NAMESRV_CONFIG,
        "orderMessageEnable=true\nenableTopicList=false\n",
      ),
      broker: await answer(rb.brokerAddr, RequestCode.UPDATE_BROKER_CONFIG, "brokerPermission=4\n"),
      // Keys that would move files elsewhere are refused as RocketMQ 5.2+ refuses them.
      namesrvPath: await answer(
        rb.namesrvAddr,
        RequestCode.UPDATE_NAMESRV_CONFIG,
        "configStorePath=/tmp/x\n",
      ),
      namesrvHome: await answer(rb.namesrvAddr, RequestCode.UPDATE_NAMESRV_CONFIG, "rocketbunHome=/tmp/x\n"),
      brokerPath: await answer(rb.brokerAddr, RequestCode.UPDATE_BROKER_CONFIG, "brokerConfigPath=/tmp/x\n"),
      brokerStore: await answer(rb.brokerAddr, RequestCode.UPDATE_BROKER_CONFIG, "storePathRootDir=/tmp/x\n"),
      // A value the next start could not load is refused now, not kept.
      badValue: await answer(
        rb.namesrvAddr,
        RequestCode.UPDATE_NAMESRV_CONFIG,
        "scanNotActiveBrokerInterval=0\n",
      ),
    }).toEqual({
      namesrv: { code: ResponseCode.SUCCESS, remark: null },
      broker: { code: ResponseCode.SUCCESS, remark: null },
      namesrvPath: { code: ResponseCode.NO_PERMISSION, remark: "Can not update config in black list." },
      namesrvHome: { code: ResponseCode.NO_PERMISSION, remark: "Can not update config in black list." },
      brokerPath: { code: ResponseCode.NO_PERMISSION, remark: "Can not update config in black list." },
      brokerStore: { code: ResponseCode.NO_PERMISSION, remark: "Can not update config in black list." },
      badValue: {
        code: ResponseCode.INVALID_PARAMETER,
        remark: "scanNotActiveBrokerInterval: 0 is below the minimum 1",
      },
    });

    expect(await readFile(file)).toEqual(original);
    // The broker re-registers at once, its topics capped by the new permission (read-only).
    await waitFor("the route to show the read-only broker", async () => {
      const route = await c.invoke(
        rb.namesrvAddr,
        request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: "broker-rt" }),
      );
      return route.code === ResponseCode.SUCCESS && /"perm":4\b/.test(new TextDecoder().decode(route.body!));
    });
    const nsFile = await readFile(join(rb.home, "namesrv", "namesrv-runtime.properties"), "utf8");
    const brokerFile = await readFile(join(rb.home, "store", "config", "broker-runtime.properties"), "utf8");
    expect([parseProperties(nsFile), parseProperties(brokerFile)]).toEqual([
      new Map([
        ["enableTopicList", "false"],
        ["orderMessageEnable", "true"],
      ]),
      new Map([["brokerPermission", "4"]]),
    ]);

    await rb.restart();

    expect(await readFile(file)).toEqual(original);
    const ns = configOf((await call(rb.namesrvAddr, RequestCode.GET_NAMESRV_CONFIG)).body);
    const broker = configOf((await call(rb.brokerAddr, RequestCode.GET_BROKER_CONFIG)).body);
    expect({
      orderMessageEnable: ns.get("orderMessageEnable"),
      enableTopicList: ns.get("enableTopicList"),
      brokerPermission: broker.get("brokerPermission"),
      flushDiskType: broker.get("flushDiskType"),
      brokerName: broker.get("brokerName"),
      brokerClusterName: broker.get("brokerClusterName"),
      brokerPort: broker.get("listenPort"),
    }).toEqual({
      orderMessageEnable: "true",
      enableTopicList: "false",
      brokerPermission: "4",
      flushDiskType: "SYNC_FLUSH",
      brokerName: "broker-rt",
      brokerClusterName: "ClusterRT",
      brokerPort: rb.brokerAddr.split(":")[1],
    });
    // The restored change is in effect, not only printed.
    const topics = await c.invoke(
      rb.namesrvAddr,
      request(RequestCode.GET_TOPICS_BY_CLUSTER, { cluster: "ClusterRT" }),
    );
    expect({ code: topics.code, remark: topics.remark }).toEqual({ code: 1, remark: "disable" });
  } finally {
    await c.shutdown();
  }
});
