/**
 * Send probes: sendMsgStatus, checkMsgSendRT and clusterRT. Each send is timed on its own, one
 * after another; sendMsgStatus and clusterRT send to a broker's own topic (named after the broker,
 * as every RocketMQ broker creates one), so they measure that broker whatever topics exist.
 */

import type { Producer } from "../../client/index.ts";
import type { MessageQueue } from "../../client/message-queue.ts";
import { MASTER_ID } from "../../protocol/route/index.ts";
import { AdminFailure, type AdminVerb, boolOpt, intOpt, opt, required, TOPIC_FLAG } from "./context.ts";
import { humanTime, table } from "./format.ts";
import { allBrokers, producerFor } from "./requests.ts";

const TOPIC = TOPIC_FLAG;
/** mqadmin's default probe: 128 bytes. */
const PROBE_SIZE_DEFAULT = 128;

interface Probe {
  brokerName: string;
  queueId: number;
  sendStatus: string;
  rtMs: number;
}

/** `count` sends of a `size`-byte body to `topic`, one after another, each timed. */
async function probe(
  producer: Producer,
  topic: string,
  size: number,
  count: number,
  queue?: MessageQueue,
): Promise<(Probe | Error)[]> {
  const body = "x".repeat(size);
  const out: (Probe | Error)[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    try {
      const r = await producer.send({ topic, body }, queue ? { queue } : {});
      out.push({
        brokerName: r.messageQueue.brokerName,
        queueId: r.messageQueue.queueId,
        sendStatus: r.sendStatus,
        rtMs: performance.now() - start,
      });
    } catch (err) {
      out.push(err instanceof Error ? err : new Error(String(err)));
    }
  }
  return out;
}

/** Mean RT of the successful probes after the first (the first pays for the route and connection). */
function averageRt(probes: readonly (Probe | Error)[]): number {
  const rts = probes.slice(1).flatMap((p) => (p instanceof Error ? [] : [p.rtMs]));
  return rts.length === 0 ? 0 : rts.reduce((a, b) => a + b, 0) / rts.length;
}

const SIZE_FLAG = {
  long: "messageSize",
  short: "s",
  value: "BYTES",
  help: `body size (default ${PROBE_SIZE_DEFAULT})`,
} as const;

const sendMsgStatus: AdminVerb = {
  name: "sendMsgStatus",
  summary: "Send probes to a broker's own topic and print each round trip and result.",
  usage: "-b BROKER_NAME [-s SIZE] [-c COUNT]",
  flags: [
    { long: "brokerName", short: "b", value: "NAME", help: "the broker (its topic has its name)" },
    SIZE_FLAG,
    { long: "count", short: "c", value: "N", help: "how many (default 50)" },
  ],
  async run(ctx) {
    const brokerName = required(ctx, "brokerName");
    const size = intOpt(ctx, "messageSize", 1, 4 * 1024 * 1024) ?? PROBE_SIZE_DEFAULT;
    const count = intOpt(ctx, "count", 1, 100_000) ?? 50;
    const probes = await probe(await producerFor(ctx), brokerName, size, count);
    const rows = probes.map((p) => (p instanceof Error ? { error: p.message } : p));
    ctx.print(rows, () =>
      rows
        .map((r) =>
          "error" in r
            ? `SendResult failed: ${r.error}`
            : `rt=${Math.round(r.rtMs)}ms, SendResult=[sendStatus=${r.sendStatus}, brokerName=${r.brokerName}, queueId=${r.queueId}]`,
        )
        .join("\n"),
    );
    if (probes.every((p) => p instanceof Error))
      throw new AdminFailure(`no probe reached broker ${brokerName}`);
  },
};

const checkMsgSendRT: AdminVerb = {
  name: "checkMsgSendRT",
  summary: "Send probes to a topic and print the round trip of each, and the average.",
  usage: "-t TOPIC [-a AMOUNT] [-s SIZE]",
  flags: [
    TOPIC,
    { long: "amount", short: "a", value: "N", help: "how many (default 100)" },
    { ...SIZE_FLAG, long: "size" },
  ],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const amount = intOpt(ctx, "amount", 1, 100_000) ?? 100;
    const size = intOpt(ctx, "size", 1, 4 * 1024 * 1024) ?? PROBE_SIZE_DEFAULT;
    const probes = await probe(await producerFor(ctx), topic, size, amount);
    const failed = probes.find((p): p is Error => p instanceof Error);
    if (failed && probes.every((p) => p instanceof Error)) throw failed;
    const avgRt = averageRt(probes);
    ctx.print(
      { topic, probes: probes.map((p) => (p instanceof Error ? { error: p.message } : p)), avgRt },
      () =>
        [
          table(
            ["#Broker Name", "#QID", "#Send Result", "#RT"],
            probes.map((p) =>
              p instanceof Error
                ? ["", "", "failed", p.message]
                : [p.brokerName, p.queueId, p.sendStatus, Math.round(p.rtMs)],
            ),
          ),
          `Avg RT: ${avgRt.toFixed(2)}`,
        ].join("\n"),
    );
  },
};

const clusterRT: AdminVerb = {
  name: "clusterRT",
  summary: "Send probes to every broker of each cluster and print the average round trip per broker.",
  usage: "[-c CLUSTER] [-a AMOUNT] [-s SIZE] [-i SECONDS] [-p true|false] [-m ROOM]",
  flags: [
    { long: "amount", short: "a", value: "N", help: "probes per broker (default 100)" },
    { ...SIZE_FLAG, long: "size" },
    { long: "cluster", short: "c", value: "CLUSTER", help: "only this cluster (default all)" },
    {
      long: "printAsTlog",
      short: "p",
      value: "BOOL",
      help: "print time|room|cluster|broker|rt lines (default false)",
    },
    { long: "machineRoom", short: "m", value: "ROOM", help: "room name in -p lines (default noname)" },
    { long: "interval", short: "i", value: "SECONDS", help: "probe again every SECONDS until interrupted" },
  ],
  async run(ctx) {
    const amount = intOpt(ctx, "amount", 2, 100_000) ?? 100;
    const size = intOpt(ctx, "size", 1, 4 * 1024 * 1024) ?? PROBE_SIZE_DEFAULT;
    const cluster = opt(ctx, "cluster");
    const tlog = boolOpt(ctx, "printAsTlog") ?? false;
    const room = opt(ctx, "machineRoom") ?? "noname";
    const interval = intOpt(ctx, "interval", 1, 86_400);
    const admin = await ctx.admin();
    const producer = await producerFor(ctx);
    const masters = (await allBrokers(admin)).filter(
      (b) => b.brokerId === MASTER_ID && (cluster === undefined || b.cluster === cluster),
    );
    if (masters.length === 0)
      throw new AdminFailure(
        cluster === undefined ? "the NameServer knows no master broker" : `cluster [${cluster}] not exist`,
      );
    for (let round = 0; ; round++) {
      const rows: {
        clusterName: string;
        brokerName: string;
        rt: number;
        successCount: number;
        failCount: number;
      }[] = [];
      for (const b of masters) {
        const probes = await probe(producer, b.brokerName, size, amount);
        const failCount = probes.filter((p) => p instanceof Error).length;
        rows.push({
          clusterName: b.cluster,
          brokerName: b.brokerName,
          rt: averageRt(probes),
          successCount: amount - failCount,
          failCount,
        });
      }
      const now = humanTime(Date.now());
      ctx.print(rows, () =>
        tlog
          ? rows.map((r) => `${now}|${room}|${r.clusterName}|${r.brokerName}|${r.rt.toFixed(2)}`).join("\n")
          : table(
              ["#Cluster Name", "#Broker Name", "#RT", "#successCount", "#failCount"],
              rows.map((r) => [r.clusterName, r.brokerName, r.rt.toFixed(2), r.successCount, r.failCount]),
            )
              .split("\n")
              .slice(round === 0 ? 0 : 1)
              .join("\n"),
      );
      if (interval === undefined) return;
      await Bun.sleep(interval * 1000);
    }
  },
};

export const sendProbeVerbs: readonly AdminVerb[] = [sendMsgStatus, checkMsgSendRT, clusterRT];
