/**
 * Cluster and broker verbs: clusterList, brokerStatus, getBrokerConfig, updateBrokerConfig.
 */
import type { Admin } from "../../client/index.ts";
import { MASTER_ID } from "../../protocol/route/index.ts";
import { type AdminContext, type AdminVerb, boolOpt, intOpt, oneOf, opt, required } from "./context.ts";
import { keyValues, table } from "./format.ts";
import { allBrokers, type BrokerTarget, brokerConfig, targets, updateBrokerConfig } from "./requests.ts";

const BROKER_OR_CLUSTER = [
  { long: "brokerAddr", short: "b", value: "ADDR", help: "one broker" },
  { long: "clusterName", short: "c", value: "CLUSTER", help: "every broker of this cluster" },
] as const;

/** First number of a Java TPS triple ("12.5 11.0 10.2"). */
function firstNumber(text: string | undefined): number {
  const n = Number((text ?? "").split(" ")[0]);
  return Number.isFinite(n) ? n : 0;
}

function num(text: string | undefined): number {
  const n = Number(text ?? 0);
  return Number.isFinite(n) ? n : 0;
}

async function clusterRows(admin: Admin, brokers: BrokerTarget[], now: number) {
  return Promise.all(
    brokers.map(async (b) => {
      const kv = await admin.brokerRuntimeInfo(b.addr).catch(() => new Map<string, string>());
      const earliest = num(kv.get("earliestMessageTimeStamp"));
      return {
        clusterName: b.cluster,
        brokerName: b.brokerName,
        brokerId: b.brokerId,
        addr: b.addr,
        version: kv.get("brokerVersionDesc") ?? "",
        inTps: firstNumber(kv.get("putTps")),
        outTps: firstNumber(kv.get("getTransferredTps") ?? kv.get("getTransferedTps")),
        pageCacheLockTimeMills: num(kv.get("pageCacheLockTimeMills")),
        hour: earliest > 0 ? (now - earliest) / 3_600_000 : 0,
        space: num(kv.get("commitLogDiskRatio")),
        activated: kv.get("brokerActive") === "true",
        inTotalYest: num(kv.get("msgPutTotalTodayMorning")) - num(kv.get("msgPutTotalYesterdayMorning")),
        outTotalYest: num(kv.get("msgGetTotalTodayMorning")) - num(kv.get("msgGetTotalYesterdayMorning")),
        inTotalToday: num(kv.get("msgPutTotalTodayNow")) - num(kv.get("msgPutTotalTodayMorning")),
        outTotalToday: num(kv.get("msgGetTotalTodayNow")) - num(kv.get("msgGetTotalTodayMorning")),
      };
    }),
  );
}

async function printClusterList(ctx: AdminContext, admin: Admin, cluster: string | undefined, more: boolean) {
  const brokers = (await allBrokers(admin)).filter((b) => cluster === undefined || b.cluster === cluster);
  const rows = await clusterRows(admin, brokers, Date.now());
  ctx.print(rows, () =>
    more
      ? table(
          [
            "#Cluster Name",
            "#Broker Name",
            "#InTotalYest",
            "#OutTotalYest",
            "#InTotalToday",
            "#OutTotalToday",
          ],
          rows.map((r) => [
            r.clusterName,
            r.brokerName,
            r.inTotalYest,
            r.outTotalYest,
            r.inTotalToday,
            r.outTotalToday,
          ]),
        )
      : table(
          [
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
          ],
          rows.map((r) => [
            r.clusterName,
            r.brokerName,
            r.brokerId,
            r.addr,
            r.version,
            r.inTps.toFixed(2),
            r.outTps.toFixed(2),
            r.pageCacheLockTimeMills,
            r.hour.toFixed(2),
            r.space.toFixed(4),
            r.activated,
          ]),
        ),
  );
}

const clusterList: AdminVerb = {
  name: "clusterList",
  summary: "Every broker of every cluster with its version, throughput and state.",
  usage: "[-m] [-i SECONDS] [-c CLUSTER]",
  flags: [
    { long: "moreStats", short: "m", help: "messages in and out yesterday and today instead" },
    { long: "interval", short: "i", value: "SECONDS", help: "print again every SECONDS until interrupted" },
    { long: "clusterName", short: "c", value: "CLUSTER", help: "only this cluster" },
  ],
  async run(ctx) {
    const cluster = opt(ctx, "clusterName");
    const interval = intOpt(ctx, "interval", 1, 86_400);
    const more = ctx.args.flags.has("moreStats");
    const admin = await ctx.admin();
    await printClusterList(ctx, admin, cluster, more);
    while (interval !== undefined) {
      await Bun.sleep(interval * 1000);
      ctx.io.out("");
      await printClusterList(ctx, admin, cluster, more);
    }
  },
};

/** The brokers `-b`/`-c` name: the one address, or the cluster's masters and (with slaves) slaves. */
async function brokerOrCluster(
  ctx: AdminContext,
  admin: Admin,
  withSlaves: boolean,
): Promise<BrokerTarget[]> {
  const where = oneOf(ctx, "brokerAddr", "clusterName");
  if (where.brokerAddr !== undefined || !withSlaves) return targets(admin, where);
  await targets(admin, where); // fails when the cluster has no master
  return (await allBrokers(admin)).filter((b) => b.cluster === where.clusterName);
}

/**
 * `fetch` run for the broker `-b` names, or for every broker (slaves too) of the `-c` cluster, at
 * once; `single` when `-b` named one.
 */
async function fromEachBroker<T>(
  ctx: AdminContext,
  fetch: (admin: Admin, broker: BrokerTarget) => Promise<T>,
): Promise<{ single: boolean; results: (readonly [BrokerTarget, T])[] }> {
  const admin = await ctx.admin();
  const single = opt(ctx, "brokerAddr") !== undefined;
  const brokers = await brokerOrCluster(ctx, admin, true);
  const results = await Promise.all(brokers.map(async (b) => [b, await fetch(admin, b)] as const));
  return { single, results };
}

const brokerStatus: AdminVerb = {
  name: "brokerStatus",
  summary: "A broker's runtime statistics (GET_BROKER_RUNTIME_INFO), sorted by key.",
  usage: "(-b BROKER_ADDR | -c CLUSTER)",
  flags: BROKER_OR_CLUSTER,
  async run(ctx) {
    const { single, results } = await fromEachBroker(
      ctx,
      async (admin, b) => new Map([...(await admin.brokerRuntimeInfo(b.addr))].sort()),
    );
    const tables = results.map(([b, kv]) => [b.addr, kv] as const);
    ctx.print(single ? tables[0]?.[1] : new Map(tables), () =>
      single
        ? keyValues([...(tables[0]?.[1] ?? [])])
        : keyValues(tables.flatMap(([addr, kv]) => [...kv].map(([k, v]) => [`${addr}  ${k}`, v] as const))),
    );
  },
};

const getBrokerConfig: AdminVerb = {
  name: "getBrokerConfig",
  summary: "A broker's configuration, or that of every broker of a cluster.",
  usage: "(-b BROKER_ADDR | -c CLUSTER)",
  flags: BROKER_OR_CLUSTER,
  async run(ctx) {
    const { single, results: configs } = await fromEachBroker(ctx, (admin, b) => brokerConfig(admin, b.addr));
    ctx.print(single ? configs[0]?.[1] : new Map(configs.map(([b, c]) => [b.addr, c])), () =>
      configs
        .map(([b, config]) => {
          const role = single ? b.addr : `${b.brokerId === MASTER_ID ? "Master" : "Slave"}: ${b.addr}`;
          return `============${role}============\n${keyValues([...config], " = ")}\n`;
        })
        .join("\n"),
    );
  },
};

const updateBrokerConfigVerb: AdminVerb = {
  name: "updateBrokerConfig",
  summary: "Change one configuration key on a broker, or on every master of a cluster.",
  usage: "(-b BROKER_ADDR | -c CLUSTER) -k KEY -v VALUE [-a true|false]",
  flags: [
    ...BROKER_OR_CLUSTER,
    { long: "updateAllBroker", short: "a", value: "BOOL", help: "with -c: slaves too (true|false)" },
    { long: "key", short: "k", value: "KEY", help: "configuration key" },
    { long: "value", short: "v", value: "VALUE", help: "new value" },
  ],
  async run(ctx) {
    const key = required(ctx, "key");
    const value = ctx.args.flags.get("value");
    if (value === undefined) required(ctx, "value");
    const admin = await ctx.admin();
    const brokers = await brokerOrCluster(ctx, admin, boolOpt(ctx, "updateAllBroker") ?? false);
    for (const b of brokers) await updateBrokerConfig(admin, b.addr, key, value ?? "");
    const addrs = brokers.map((b) => b.addr);
    ctx.print({ key, value, brokerAddrs: addrs }, () =>
      addrs.map((a) => `broker ${a}: ${key}=${value} updated`).join("\n"),
    );
  },
};

export const clusterVerbs: readonly AdminVerb[] = [
  clusterList,
  brokerStatus,
  getBrokerConfig,
  updateBrokerConfigVerb,
];
