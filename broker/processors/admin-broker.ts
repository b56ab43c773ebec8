/**
 * Broker-level administration: GET_BROKER_RUNTIME_INFO (28, spec broker §12), GET_BROKER_CONFIG (26),
 * UPDATE_BROKER_CONFIG (25). Only the keys of runtime-config.ts may be updated, and the answer
 * names any other key as black-listed, unknown or needing a restart; the changes are kept in
 * brokerConfigPath (never the operator's -c file) and applied at the next start too.
 */
import { parseProperties } from "../../src/config/properties.ts";
import { BROKER_PATH_KEYS, blackListOf } from "../../src/config/runtime-changes.ts";
import { ViewBrokerStatsDataRequestHeader } from "../../src/protocol/headers/admin-maintenance.ts";
import { jsonBytes } from "../../src/protocol/json/index.ts";
import { encodeKVTable } from "../../src/protocol/route/bodies.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { checkRuntimeChange, type RuntimeChange } from "../runtime-config.ts";
import { DAY_WINDOW, HOUR_WINDOW, MINUTE_WINDOW } from "../services/stats-items.ts";
import { ratioText } from "../store/disk-usage.ts";

/** The version we report: V5_3_3 (spec broker §0 item 4). */
export const BROKER_VERSION_DESC = "V5_3_3";
export const BROKER_VERSION = 479;

function uptime(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `[ ${Math.floor(s / 86400)} days, ${Math.floor((s % 86400) / 3600)} hours, ${Math.floor((s % 3600) / 60)} minutes, ${s % 60} seconds ]`;
}

function tps(v: number): string {
  return `${v} ${v} ${v}`;
}

export async function runtimeInfo(ctx: BrokerContext): Promise<Map<string, string>> {
  const s = ctx.store.getRuntimeStats();
  const now = Date.now();
  const put = ctx.stats.putNums.perSecond(now);
  const get = ctx.stats.getNums.perSecond(now);
  const disk = await ctx.store.getDiskUsedPercents();
  const send = ctx.laneLoad("send");
  const pull = ctx.laneLoad("pull");
  const putMornings = ctx.stats.putNums.morningTotals(now);
  const getMornings = ctx.stats.getNums.morningTotals(now);
  return new Map([
    ["brokerVersionDesc", BROKER_VERSION_DESC],
    ["brokerVersion", String(BROKER_VERSION)],
    ["brokerActive", "true"],
    ["bootTimestamp", String(ctx.stats.bootTimestamp)],
    ["runtime", uptime(now - ctx.stats.bootTimestamp)],
    ["msgPutTotalYesterdayMorning", String(putMornings.yesterday)],
    ["msgPutTotalTodayMorning", String(putMornings.today)],
    ["msgPutTotalTodayNow", String(ctx.stats.putNums.total)],
    ["msgGetTotalYesterdayMorning", String(getMornings.yesterday)],
    ["msgGetTotalTodayMorning", String(getMornings.today)],
    ["msgGetTotalTodayNow", String(ctx.stats.getNums.total)],
    ["putTps", tps(put)],
    ["getTransferedTps", tps(get)],
    ["getTransferredTps", tps(get)],
    ["getFoundTps", tps(get)],
    ["getMissTps", tps(0)],
    ["getTotalTps", tps(get)],
    ["putMessageTimesTotal", String(s.putMessageTimesTotal)],
    ["putMessageSizeTotal", String(s.putMessageSizeTotal)],
    ["putMessageFailedTimes", String(s.putMessageFailedTimes)],
    ["commitLogMinOffset", String(s.commitLogMinOffset)],
    ["commitLogMaxOffset", String(s.commitLogMaxOffset)],
    ["dispatchBehindBytes", String(s.dispatchBehindBytes)],
    ["remainHowManyDataToFlush", String(s.remainHowManyDataToFlush)],
    ["pageCacheLockTimeMills", "0"],
    ["earliestMessageTimeStamp", String(await ctx.store.getEarliestMessageTimeInStore())],
    // Java also names the CommitLog's path in a key of its own (it may list several).
    ["commitLogDiskRatio", ratioText(disk.commitLog)],
    ...(disk.commitLogDir
      ? [[`commitLogDiskRatio_${disk.commitLogDir}`, ratioText(disk.commitLog)] as const]
      : []),
    ["consumeQueueDiskRatio", ratioText(disk.consumeQueue)],
    ["sendThreadPoolQueueSize", String(send.waiting)],
    ["sendThreadPoolQueueCapacity", String(ctx.brokerConfig.sendThreadPoolQueueCapacity)],
    ["pullThreadPoolQueueSize", String(pull.waiting)],
    ["pullThreadPoolQueueCapacity", String(ctx.brokerConfig.pullThreadPoolQueueCapacity)],
    ["sendThreadPoolQueueHeadWaitTimeMills", String(send.headWaitMs)],
    ["pullThreadPoolQueueHeadWaitTimeMills", String(pull.headWaitMs)],
    ["heldPulls", String(ctx.longPoll.size)],
    ["timerReadBehind", "0"],
    ["timerOffsetBehind", "0"],
    ["timerCongestNum", "0"],
    ["timerEnqueueTps", "0.0"],
    ["timerDequeueTps", "0.0"],
    // The services' own keys (scheduleMessageOffset_<level>, the timer's) replace the defaults above.
    ...ctx.runtimeInfo(),
  ]);
}

/**
 * Every key of the broker's configuration, as Java's broker answers it: broker, netty server and
 * client, and store keys, with run-time values (the bound port, the current permission) winning.
 */
function configText(ctx: BrokerContext): string {
  const listenPort = ctx.storeHost.port;
  const all: Record<string, unknown> = {
    ...ctx.nettyClientConfig,
    ...ctx.nettyServerConfig,
    listenPort,
    ...ctx.storeConfig,
    ...ctx.brokerConfig,
    ...ctx.runtime,
  };
  return `${Object.entries(all)
    .map(([k, v]) => `${k}=${v}`)
    .join("\n")}\n`;
}

export function adminBrokerProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [
      RequestCode.GET_BROKER_RUNTIME_INFO,
      async () =>
        RemotingCommand.response(ResponseCode.SUCCESS, null, null, encodeKVTable(await runtimeInfo(ctx))),
    ],
    [
      RequestCode.VIEW_BROKER_STATS_DATA,
      (req) => {
        const h = ViewBrokerStatsDataRequestHeader.decode(req.extFields);
        const item = ctx.stats.items.get(h.statsName, h.statsKey);
        if (item === undefined) {
          return RemotingCommand.response(
            ResponseCode.SYSTEM_ERROR,
            `The stats <${h.statsName}> <${h.statsKey}> not exist`,
          );
        }
        // Java's BrokerStatsData: one BrokerStatsItem (sum, tps, avgpt) per window.
        const data = {
          statsMinute: item.figures(MINUTE_WINDOW),
          statsHour: item.figures(HOUR_WINDOW),
          statsDay: item.figures(DAY_WINDOW),
        };
        return RemotingCommand.response(ResponseCode.SUCCESS, null, null, jsonBytes(data));
      },
    ],
    [
      RequestCode.GET_BROKER_CONFIG,
      () =>
        RemotingCommand.response(
          ResponseCode.SUCCESS,
          null,
          { version: JSON.stringify(ctx.topics.dataVersion) },
          new TextEncoder().encode(configText(ctx)),
        ),
    ],
    [
      RequestCode.UPDATE_BROKER_CONFIG,
      async (req) => {
        const text = new TextDecoder().decode(req.body ?? new Uint8Array());
        let entries: Map<string, string>;
        try {
          entries = parseProperties(text, "UPDATE_BROKER_CONFIG body");
        } catch (err) {
          throw new RemotingError(ResponseCode.SYSTEM_ERROR, (err as Error).message);
        }
        const black = blackListOf(ctx.brokerConfig.configBlackList, BROKER_PATH_KEYS);
        // Java's remark, word for word: scripts written against RocketMQ look for it.
        if ([...entries.keys()].some((key) => black.has(key)))
          throw new RemotingError(ResponseCode.NO_PERMISSION, "Can not update config in black list.");
        // All or nothing: every key is checked before any is applied.
        const changes: RuntimeChange[] = [];
        for (const [key, raw] of entries) {
          const checked = checkRuntimeChange(key, raw);
          if ("kind" in checked)
            throw new RemotingError(
              checked.kind === "invalid" ? ResponseCode.INVALID_PARAMETER : ResponseCode.NO_PERMISSION,
              checked.message,
            );
          changes.push(checked);
        }
        if (changes.length === 0) return RemotingCommand.response(ResponseCode.SUCCESS);
        for (const c of changes) {
          if (c.key === "brokerPermission") ctx.runtime.brokerPermission = c.value as number;
          else ctx.updateConfig(c.section, c.key, c.value);
        }
        ctx.runtimeChanges.set(changes.map((c) => [c.key, String(c.value)] as const));
        if (changes.some((c) => c.key === "brokerPermission")) {
          ctx.topics.permissionChanged();
          ctx.onRuntimeChanged();
        }
        // In effect now; a failed write is logged and retried (Java logs and answers SUCCESS too).
        await ctx.runtimeChanges.save();
        return RemotingCommand.response(ResponseCode.SUCCESS);
      },
    ],
  ];
}
