/**
 * Message verbs: queryMsgById, queryMsgByKey, queryMsgByOffset, sendMessage, consumeMessage.
 * sendMessage --count and consumeMessage show a progress bar on a terminal.
 */
import type { Admin, MessageExt, SendResult } from "../../client/index.ts";
import { decodeMessages } from "../../client/message.ts";
import { type MessageQueue, mqKey } from "../../client/message-queue.ts";
import { decodeOffsetMessageId } from "../../protocol/message/index.ts";
import { isReadable, MASTER_ID } from "../../protocol/route/index.ts";
import { UsageError } from "../args.ts";
import {
  type AdminContext,
  AdminFailure,
  type AdminVerb,
  intOpt,
  opt,
  required,
  TOPIC_FLAG,
  timestampOpt,
} from "./context.ts";
import { humanTime, keyValues, table } from "./format.ts";
import { producerFor, targets } from "./requests.ts";

const TOPIC = TOPIC_FLAG;
export const BODY_FORMAT = {
  long: "bodyFormat",
  short: "f",
  value: "CHARSET",
  help: "also print the body, decoded with this charset (e.g. UTF-8)",
} as const;

export function bodyText(body: Uint8Array, charset = "utf-8"): string {
  try {
    return new TextDecoder(charset as ConstructorParameters<typeof TextDecoder>[0]).decode(body);
  } catch {
    return new TextDecoder().decode(body);
  }
}

export function details(ctx: AdminContext, msg: MessageExt): string {
  const charset = opt(ctx, "bodyFormat");
  const rows: [string, string | number][] = [
    ["OffsetID:", msg.offsetMsgId],
    ["MsgId:", msg.msgId],
    ["Topic:", msg.topic],
    ["Tags:", `[${msg.tags ?? ""}]`],
    ["Keys:", `[${msg.keys.join(" ")}]`],
    ["Queue ID:", msg.queueId],
    ["Queue Offset:", msg.queueOffset],
    ["CommitLog Offset:", msg.commitLogOffset],
    ["Reconsume Times:", msg.reconsumeTimes],
    ["Born Timestamp:", humanTime(msg.bornTimestamp)],
    ["Store Timestamp:", humanTime(msg.storeTimestamp)],
    ["Born Host:", msg.bornHost],
    ["Store Host:", msg.storeHost],
    ["System Flag:", msg.sysFlag],
    ["Properties:", JSON.stringify(msg.properties)],
  ];
  if (charset !== undefined) rows.push(["Message Body:", bodyText(msg.body, charset)]);
  return keyValues(rows, " ");
}

/**
 * A message by its offset id alone: the id carries the storing broker's address and the physical
 * offset (mqadmin's queryMsgById needs nothing else). A unique id does not decode to a broker that
 * answers; the error says to give the topic.
 */
async function byOffsetId(admin: Admin, id: string): Promise<MessageExt> {
  let decoded: ReturnType<typeof decodeOffsetMessageId> | undefined;
  try {
    decoded = decodeOffsetMessageId(id);
  } catch {
    decoded = undefined;
  }
  // A unique id is 32 hex digits too; what it decodes to has no valid port.
  const port = decoded?.storeHost.port ?? 0;
  if (decoded === undefined || port <= 0 || port > 65_535)
    throw new UsageError(
      `'${id}' is not an offset message id (one carries its broker's address): give the topic with -t to look up a unique id (see rocketbun admin queryMsgById --help)`,
    );
  const brokerName =
    (await targets(admin, { brokerAddr: decoded.address }).catch(() => []))[0]?.brokerName ?? "";
  let msg: MessageExt | null;
  try {
    msg = await admin.client.broker.viewMessage(decoded.address, decoded.physicalOffset, brokerName);
  } catch (err) {
    throw new AdminFailure(
      `message ${id}: the broker it names (${decoded.address}) did not answer (${(err as Error).message}); for a unique id (the one producers print) give its topic with -t`,
    );
  }
  if (!msg) throw new AdminFailure(`no message with offset id ${id} on broker ${decoded.address}`);
  return msg;
}

const queryMsgById: AdminVerb = {
  name: "queryMsgById",
  summary: "Look a message up by its offset id (carries its broker), or by unique id with its topic (-t).",
  usage: "-i MSG_ID[,MSG_ID...] [-t TOPIC] [-f CHARSET]",
  flags: [
    TOPIC,
    { long: "msgId", short: "i", value: "ID", help: "message id(s), comma separated" },
    BODY_FORMAT,
  ],
  async run(ctx) {
    const topic = opt(ctx, "topic");
    const ids = required(ctx, "msgId")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    const admin = await ctx.admin();
    const found: MessageExt[] = [];
    for (const id of ids) {
      if (topic === undefined) {
        found.push(await byOffsetId(admin, id));
        continue;
      }
      const msg = await admin.queryMessageById(topic, id);
      if (!msg) throw new AdminFailure(`no message with id ${id} in topic ${topic}`);
      found.push(msg);
    }
    ctx.print(ids.length === 1 ? found[0] : found, () => found.map((m) => details(ctx, m)).join("\n\n"));
  },
};

const queryMsgByKey: AdminVerb = {
  name: "queryMsgByKey",
  summary: "Messages of a topic whose keys include KEY (from the brokers' index).",
  usage: "-t TOPIC -k KEY [-b BEGIN_MS] [-e END_MS] [-m MAX]",
  flags: [
    TOPIC,
    { long: "msgKey", short: "k", value: "KEY", help: "message key" },
    { long: "beginTimestamp", short: "b", value: "MS", help: "stored at or after (default 0)" },
    { long: "endTimestamp", short: "e", value: "MS", help: "stored before (default: no limit)" },
    { long: "maxNum", short: "m", value: "N", help: "at most N messages (default 64)" },
  ],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const key = required(ctx, "msgKey");
    const begin = timestampOpt(ctx, "beginTimestamp") ?? 0;
    const end = timestampOpt(ctx, "endTimestamp") ?? Number.MAX_SAFE_INTEGER;
    const maxNum = intOpt(ctx, "maxNum", 1, 65_535) ?? 64;
    const msgs = await (await ctx.admin()).queryMessageByKey(topic, key, maxNum, begin, end);
    ctx.print(msgs, () =>
      table(
        ["#Message ID", "#QID", "#Offset"],
        msgs.map((m) => [m.msgId, m.queueId, m.queueOffset]),
      ),
    );
  },
};

const queryMsgByOffset: AdminVerb = {
  name: "queryMsgByOffset",
  summary: "The message at one offset of one queue.",
  usage: "-t TOPIC -b BROKER_NAME -i QUEUE_ID -o OFFSET [-f CHARSET]",
  flags: [
    TOPIC,
    { long: "brokerName", short: "b", value: "NAME", help: "broker name" },
    { long: "queueId", short: "i", value: "ID", help: "queue id" },
    { long: "offset", short: "o", value: "OFFSET", help: "queue offset" },
    BODY_FORMAT,
  ],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const brokerName = required(ctx, "brokerName");
    const queueId = intOpt(ctx, "queueId", 0, 65_535) ?? Number(required(ctx, "queueId"));
    const offset = intOpt(ctx, "offset") ?? Number(required(ctx, "offset"));
    const admin = await ctx.admin();
    const msg = await admin.queryMessageByOffset({ topic, brokerName, queueId }, offset);
    if (!msg) throw new AdminFailure(`no message at offset ${offset} of ${topic}/${brokerName}/${queueId}`);
    ctx.print(msg, () => details(ctx, msg));
  },
};

const sendMessage: AdminVerb = {
  name: "sendMessage",
  summary: "Send a message (or --count copies, with a progress bar) and print where it was stored.",
  usage: "-t TOPIC -p BODY [-k KEYS] [-c TAGS] [-b BROKER_NAME -i QUEUE_ID] [--count N]",
  flags: [
    TOPIC,
    { long: "body", short: "p", value: "BODY", help: "message body (UTF-8 text)" },
    { long: "key", short: "k", value: "KEYS", help: "message keys, space separated" },
    { long: "tags", short: "c", value: "TAGS", help: "message tag" },
    { long: "broker", short: "b", value: "NAME", help: "send to this broker (with -i)" },
    { long: "qid", short: "i", value: "ID", help: "send to this queue (needs -b)" },
    { long: "count", value: "N", help: "send N messages (RocketBun; default 1)" },
  ],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const body = ctx.args.flags.get("body") ?? required(ctx, "body");
    const keys = opt(ctx, "key");
    const tags = opt(ctx, "tags");
    const brokerName = opt(ctx, "broker");
    const queueId = intOpt(ctx, "qid", 0, 65_535);
    if (queueId !== undefined && brokerName === undefined) required(ctx, "broker");
    const count = intOpt(ctx, "count", 1, 100_000_000) ?? 1;
    const producer = await producerFor(ctx);
    const queue =
      brokerName !== undefined && queueId !== undefined ? { topic, brokerName, queueId } : undefined;
    const msg = { topic, body, ...(keys ? { keys } : {}), ...(tags ? { tags } : {}) };
    const send = () => producer.send(msg, queue ? { queue } : {});
    if (count === 1) {
      const r = await send();
      ctx.print(r, () =>
        table(
          ["#Broker Name", "#QID", "#Send Result", "#MsgId"],
          [[r.messageQueue.brokerName, r.messageQueue.queueId, r.sendStatus, r.msgId]],
        ),
      );
      return;
    }
    const started = Date.now();
    const perQueue = new Map<string, { mq: MessageQueue; sent: number }>();
    const progress = ctx.progress(count, "msgs");
    let next = 0;
    const worker = async () => {
      while (next < count) {
        next++;
        const r: SendResult = await send();
        const entry = perQueue.get(mqKey(r.messageQueue)) ?? { mq: r.messageQueue, sent: 0 };
        entry.sent++;
        perQueue.set(mqKey(r.messageQueue), entry);
        progress.tick();
      }
    };
    await Promise.all(Array.from({ length: Math.min(32, count) }, worker));
    progress.done();
    const elapsedMs = Date.now() - started;
    const queues = [...perQueue.values()]
      .sort((a, b) => a.mq.brokerName.localeCompare(b.mq.brokerName) || a.mq.queueId - b.mq.queueId)
      .map((q) => ({ brokerName: q.mq.brokerName, queueId: q.mq.queueId, sent: q.sent }));
    ctx.print({ topic, sent: count, elapsedMs, queues }, () =>
      [
        table(
          ["#Broker Name", "#QID", "#Sent"],
          queues.map((q) => [q.brokerName, q.queueId, q.sent]),
        ),
        "",
        `sent ${count} messages in ${elapsedMs} ms`,
      ].join("\n"),
    );
  },
};

interface QueueRange {
  mq: MessageQueue;
  addr: string;
  from: number;
  /** Exclusive. */
  to: number;
}

async function consumeRanges(ctx: AdminContext, admin: Admin, topic: string): Promise<QueueRange[]> {
  const brokerName = opt(ctx, "brokerName");
  const queueId = intOpt(ctx, "queueId", 0, 65_535);
  if (queueId !== undefined && brokerName === undefined) required(ctx, "brokerName");
  const offset = intOpt(ctx, "offset");
  if (offset !== undefined && queueId === undefined) required(ctx, "queueId");
  const begin = timestampOpt(ctx, "beginTimestamp");
  const end = timestampOpt(ctx, "endTimestamp");
  const route = await admin.topicRoute(topic);
  const ranges: QueueRange[] = [];
  for (const q of [...route.queueDatas].sort((a, b) => a.brokerName.localeCompare(b.brokerName))) {
    if (!isReadable(q.perm) || (brokerName !== undefined && q.brokerName !== brokerName)) continue;
    const addr = route.brokerDatas.find((b) => b.brokerName === q.brokerName)?.brokerAddrs.get(MASTER_ID);
    if (addr === undefined) continue;
    for (let id = 0; id < q.readQueueNums; id++) {
      if (queueId !== undefined && id !== queueId) continue;
      const api = admin.client.broker;
      let from =
        begin !== undefined
          ? await api.searchOffset(addr, topic, id, begin)
          : await api.minOffset(addr, topic, id);
      const to =
        end !== undefined
          ? await api.searchOffset(addr, topic, id, end)
          : await api.maxOffset(addr, topic, id);
      if (offset !== undefined) from = Math.max(from, offset);
      ranges.push({ mq: { topic, brokerName: q.brokerName, queueId: id }, addr, from, to });
    }
  }
  if (ranges.length === 0) throw new AdminFailure(`no readable queue of topic ${topic} matches`);
  return ranges;
}

const consumeMessage: AdminVerb = {
  name: "consumeMessage",
  summary: "Read messages from a topic (all queues, one queue, from an offset or a time) without committing.",
  usage: "-t TOPIC [-b BROKER_NAME [-i QUEUE_ID [-o OFFSET]]] [-g GROUP] [-s BEGIN] [-e END] [-c COUNT]",
  flags: [
    TOPIC,
    { long: "brokerName", short: "b", value: "NAME", help: "only this broker" },
    { long: "queueId", short: "i", value: "ID", help: "only this queue (needs -b)" },
    { long: "offset", short: "o", value: "OFFSET", help: "start at this offset (needs -i)" },
    {
      long: "consumerGroup",
      short: "g",
      value: "GROUP",
      help: "group named in the pull requests (default TOOLS_CONSUMER)",
    },
    {
      long: "beginTimestamp",
      short: "s",
      value: "TIME",
      help: "stored at or after: milliseconds or yyyy-MM-dd#HH:mm:ss:SSS",
    },
    {
      long: "endTimestamp",
      short: "e",
      value: "TIME",
      help: "stored before: milliseconds or yyyy-MM-dd#HH:mm:ss:SSS",
    },
    { long: "MessageNumber", short: "c", value: "COUNT", help: "at most COUNT messages (default 128)" },
  ],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const group = opt(ctx, "consumerGroup") ?? "TOOLS_CONSUMER";
    const limit = intOpt(ctx, "MessageNumber", 1, 100_000_000) ?? 128;
    const admin = await ctx.admin();
    const ranges = await consumeRanges(ctx, admin, topic);
    const total = Math.min(
      limit,
      ranges.reduce((sum, r) => sum + Math.max(0, r.to - r.from), 0),
    );
    const progress = ctx.progress(total, "msgs");
    const out: MessageExt[] = [];
    for (const r of ranges) {
      let offset = r.from;
      while (offset < r.to && out.length < limit) {
        const max = Math.min(32, limit - out.length, r.to - offset);
        const pulled = await admin.pullFrom(r.mq, offset, max, group, r.addr);
        if (pulled.status !== "FOUND" || !pulled.body) break;
        const msgs = decodeMessages(pulled.body, r.mq.brokerName).filter((m) => m.queueOffset < r.to);
        out.push(...msgs.slice(0, limit - out.length));
        progress.tick(msgs.length);
        if (pulled.nextBeginOffset <= offset) break;
        offset = pulled.nextBeginOffset;
      }
    }
    progress.done();
    ctx.print(out, () =>
      table(
        ["#Broker Name", "#QID", "#Offset", "#MsgId", "#Tags", "#Keys", "#StoreTime", "#Body"],
        out.map((m) => [
          m.brokerName,
          m.queueId,
          m.queueOffset,
          m.msgId,
          m.tags,
          m.keys.join(" "),
          humanTime(m.storeTimestamp),
          bodyText(m.body).replace(/\s+/g, " "),
        ]),
      ),
    );
  },
};

export const messageVerbs: readonly AdminVerb[] = [
  queryMsgById,
  queryMsgByKey,
  queryMsgByOffset,
  sendMessage,
  consumeMessage,
];
