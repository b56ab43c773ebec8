/**
 * More message verbs: queryMsgByUniqueKey, printMsg, printMsgByQueue.
 */
import type { Admin, MessageExt } from "../../client/index.ts";
import type { MessageQueue } from "../../client/message-queue.ts";
import { isReadable, MASTER_ID } from "../../protocol/route/index.ts";
import {
  type AdminContext,
  AdminFailure,
  type AdminVerb,
  boolOpt,
  intOpt,
  opt,
  required,
  TOPIC_FLAG,
  timestampOpt,
} from "./context.ts";
import { humanTime } from "./format.ts";
import { BODY_FORMAT, bodyText, details } from "./messages.ts";
import { type RangeRead, readRange, tagFilter } from "./pull-range.ts";

const TOPIC = TOPIC_FLAG;
const CHARSET = {
  long: "charsetName",
  short: "c",
  value: "CHARSET",
  help: "body charset (default UTF-8)",
} as const;
const SUB_EXPRESSION = {
  long: "subExpression",
  short: "s",
  value: "EXPR",
  help: "only these tags, e.g. 'TagA || TagB' (default *)",
} as const;
const BEGIN = {
  long: "beginTimestamp",
  short: "b",
  value: "TIME",
  help: "stored at or after: ms or yyyy-MM-dd#HH:mm:ss:SSS",
} as const;
const END = {
  long: "endTimestamp",
  short: "e",
  value: "TIME",
  help: "stored before: ms or yyyy-MM-dd#HH:mm:ss:SSS",
} as const;

const queryMsgByUniqueKey: AdminVerb = {
  name: "queryMsgByUniqueKey",
  summary: "A message by the unique id its producer printed (with -a, every stored copy, at most 32).",
  usage: "-t TOPIC -i MSG_ID [-a] [-f CHARSET]",
  flags: [
    TOPIC,
    { long: "msgId", short: "i", value: "ID", help: "the message's unique id (UNIQ_KEY)" },
    { long: "showAll", short: "a", help: "every copy found, not only the first" },
    BODY_FORMAT,
    { long: "cluster", short: "c", value: "CLUSTER", help: "accepted for mqadmin compatibility" },
  ],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const id = required(ctx, "msgId");
    const all = ctx.args.flags.has("showAll");
    const found = await (await ctx.admin()).queryMessageByUniqueKey(topic, id);
    if (found.length === 0) throw new AdminFailure(`no message with unique key ${id} in topic ${topic}`);
    const shown = all ? found : found.slice(0, 1);
    ctx.print(all ? shown : shown[0], () => shown.map((m) => details(ctx, m)).join("\n\n"));
  },
};

function messageLine(m: MessageExt, charset: string, printBody: boolean): string {
  const summary = `MessageExt [brokerName=${m.brokerName}, queueId=${m.queueId}, queueOffset=${m.queueOffset}, tags=${m.tags ?? ""}, keys=${m.keys.join(" ")}, storeTimestamp=${humanTime(m.storeTimestamp)}]`;
  return `MSGID: ${m.msgId} ${summary} BODY: ${printBody ? bodyText(m.body, charset) : "NOT PRINT BODY"}`;
}

const mqText = (mq: MessageQueue) =>
  `MessageQueue [topic=${mq.topic}, brokerName=${mq.brokerName}, queueId=${mq.queueId}]`;

/** The offsets [from, to) of a queue that -b/-e select (the whole queue without them). */
async function offsetRange(ctx: AdminContext, admin: Admin, mq: MessageQueue, addr: string) {
  const begin = timestampOpt(ctx, "beginTimestamp");
  const end = timestampOpt(ctx, "endTimestamp");
  const api = admin.client.broker;
  const from =
    begin !== undefined
      ? await api.searchOffset(addr, mq.topic, mq.queueId, begin)
      : await api.minOffset(addr, mq.topic, mq.queueId);
  const to =
    end !== undefined
      ? await api.searchOffset(addr, mq.topic, mq.queueId, end)
      : await api.maxOffset(addr, mq.topic, mq.queueId);
  return { from, to };
}

async function readableQueues(admin: Admin, topic: string, brokerName?: string) {
  const route = await admin.topicRoute(topic);
  const out: { mq: MessageQueue; addr: string }[] = [];
  for (const q of [...route.queueDatas].sort((a, b) => a.brokerName.localeCompare(b.brokerName))) {
    if (!isReadable(q.perm) || (brokerName !== undefined && q.brokerName !== brokerName)) continue;
    const addr = route.brokerDatas.find((b) => b.brokerName === q.brokerName)?.brokerAddrs.get(MASTER_ID);
    if (addr === undefined) continue;
    for (let queueId = 0; queueId < q.readQueueNums; queueId++)
      out.push({ mq: { topic, brokerName: q.brokerName, queueId }, addr });
  }
  return out;
}

const printMsg: AdminVerb = {
  name: "printMsg",
  summary: "Print the messages of every queue of a topic (optionally by tags and time).",
  usage: "-t TOPIC [-c CHARSET] [-s 'TagA || TagB'] [-b BEGIN] [-e END] [-d true|false]",
  flags: [
    TOPIC,
    CHARSET,
    SUB_EXPRESSION,
    BEGIN,
    END,
    { long: "printBody", short: "d", value: "BOOL", help: "print bodies (true|false, default true)" },
  ],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const charset = opt(ctx, "charsetName") ?? "UTF-8";
    const keep = tagFilter(opt(ctx, "subExpression"));
    const printBody = boolOpt(ctx, "printBody") ?? true;
    const admin = await ctx.admin();
    const queues: ({ mq: MessageQueue; minOffset: number; maxOffset: number } & RangeRead)[] = [];
    for (const { mq, addr } of await readableQueues(admin, topic)) {
      const { from, to } = await offsetRange(ctx, admin, mq, addr);
      queues.push({ mq, minOffset: from, maxOffset: to, ...(await readRange(admin, mq, from, to, keep)) });
    }
    ctx.print(queues, () =>
      queues
        .flatMap((q) => [
          `minOffset=${q.minOffset}, maxOffset=${q.maxOffset}, ${mqText(q.mq)}`,
          ...q.messages.map((m) => messageLine(m, charset, printBody)),
          `${mqText(q.mq)} print msg finished. status=${q.status}, offset=${q.offset}`,
        ])
        .concat("--------------------------------------------------------")
        .join("\n"),
    );
  },
};

const printMsgByQueue: AdminVerb = {
  name: "printMsgByQueue",
  summary: "Print, or count by tag, the messages of one queue.",
  usage: "-t TOPIC -a BROKER_NAME -i QUEUE_ID [-s EXPR] [-b BEGIN] [-e END] [-p BOOL] [-d BOOL] [-f BOOL]",
  flags: [
    TOPIC,
    { long: "brokerName", short: "a", value: "NAME", help: "broker name" },
    { long: "queueId", short: "i", value: "ID", help: "queue id" },
    CHARSET,
    SUB_EXPRESSION,
    BEGIN,
    END,
    { long: "print", short: "p", value: "BOOL", help: "print each message (true|false, default false)" },
    { long: "printBody", short: "d", value: "BOOL", help: "with -p, print bodies (default false)" },
    {
      long: "calculate",
      short: "f",
      value: "BOOL",
      help: "count messages by tag (true|false, default false)",
    },
  ],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const brokerName = required(ctx, "brokerName");
    const queueId = intOpt(ctx, "queueId", 0, 65_535) ?? Number(required(ctx, "queueId"));
    const charset = opt(ctx, "charsetName") ?? "UTF-8";
    const keep = tagFilter(opt(ctx, "subExpression"));
    const print = boolOpt(ctx, "print") ?? false;
    const printBody = boolOpt(ctx, "printBody") ?? false;
    const calculate = boolOpt(ctx, "calculate") ?? false;
    const admin = await ctx.admin();
    const queue = (await readableQueues(admin, topic, brokerName)).find((q) => q.mq.queueId === queueId);
    if (queue === undefined)
      throw new AdminFailure(`topic ${topic} has no readable queue ${queueId} on broker ${brokerName}`);
    const { from, to } = await offsetRange(ctx, admin, queue.mq, queue.addr);
    const read = await readRange(admin, queue.mq, from, to, keep);
    const counts = new Map<string, number>();
    for (const m of read.messages) counts.set(m.tags ?? "", (counts.get(m.tags ?? "") ?? 0) + 1);
    const tags = [...counts]
      .map(([tag, count]) => ({ tag, count }))
      .sort((a, b) => b.count - a.count || a.tag.localeCompare(b.tag));
    ctx.print(
      {
        mq: queue.mq,
        minOffset: from,
        maxOffset: to,
        count: read.messages.length,
        tags,
        ...(print ? { messages: read.messages } : {}),
      },
      () =>
        [
          ...(calculate ? tags.map((t) => `Tag: ${t.tag.padEnd(30)} Count: ${t.count}`) : []),
          ...(print ? read.messages.map((m) => messageLine(m, charset, printBody)) : []),
          ...(!calculate && !print
            ? [
                `${read.messages.length} messages at offsets ${from}-${to} of ${mqText(queue.mq)} (-p prints them, -f counts them by tag)`,
              ]
            : []),
        ].join("\n"),
    );
  },
};

export const messageOpVerbs: readonly AdminVerb[] = [queryMsgByUniqueKey, printMsg, printMsgByQueue];
