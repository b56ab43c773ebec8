/**
 * Dead-letter verbs: resendDlqMessage sends the messages a group gave up on (its `%DLQ%<group>`)
 * back for consumption, to the topic they were first sent to (their RETRY_TOPIC property, spec
 * broker §9.2 step 4) or, with --retry, to `%RETRY%<group>` so only that group sees them again.
 * A DLQ is append-only, as in RocketMQ: resent messages stay in it too.
 */
import { createProducer, type MessageExt, type SendResult } from "../../client/index.ts";
import { retryTopic } from "../../client/message.ts";
import { editProperties, encodeProperties, MessageConst } from "../../protocol/message/index.ts";
import { DLQ_GROUP_TOPIC_PREFIX } from "../../protocol/topic-names.ts";
import { AdminFailure, type AdminVerb, intOpt, opt, required } from "./context.ts";
import { table } from "./format.ts";
import { readTopic } from "./topic-reader.ts";

/**
 * Properties a resent copy does not keep: the broker's and the consumer's bookkeeping of its last
 * journey (delay, scheduling, timers, offsets). UNIQ_KEY, KEYS, TAGS, user properties,
 * RETRY_TOPIC and ORIGIN_MESSAGE_ID stay, so the copy keeps its id and its history.
 */
const DROPPED = [
  MessageConst.DELAY,
  MessageConst.REAL_TOPIC,
  MessageConst.REAL_QID,
  MessageConst.WAIT,
  MessageConst.MIN_OFFSET,
  MessageConst.MAX_OFFSET,
  MessageConst.CONSUME_START_TIME,
  MessageConst.RECONSUME_TIME,
  MessageConst.MAX_RECONSUME_TIMES,
  MessageConst.MSG_REGION,
  MessageConst.TRACE_ON,
  MessageConst.CLUSTER,
  MessageConst.TIMER_OUT_MS,
  MessageConst.TIMER_ENQUEUE_MS,
  MessageConst.TIMER_DEQUEUE_MS,
  MessageConst.TIMER_ROLL_TIMES,
  MessageConst.TIMER_DELIVER_MS,
  MessageConst.TIMER_DELAY_MS,
  MessageConst.TIMER_DELAY_SEC,
];

export interface Resent {
  readonly msgId: string;
  readonly dlqOffset: number;
  readonly topic: string;
  readonly sendStatus: SendResult["sendStatus"] | "SKIPPED";
  readonly queueId?: number;
  readonly queueOffset?: number;
  readonly reason?: string;
}

function destinationOf(msg: MessageExt, group: string, toRetry: boolean): string | undefined {
  return toRetry ? retryTopic(group) : msg.properties[MessageConst.RETRY_TOPIC];
}

const resendDlqMessage: AdminVerb = {
  name: "resendDlqMessage",
  summary:
    "Send a group's dead letters (all, or some by id) back to their original topic, or its retry topic.",
  usage: "-g GROUP [-t DLQ_TOPIC] [-i MSG_ID[,MSG_ID...]] [--retry] [-c MAX]",
  flags: [
    { long: "consumerGroup", short: "g", value: "GROUP", help: "the group whose dead letters to resend" },
    { long: "topic", short: "t", value: "TOPIC", help: "the dead-letter topic (default %DLQ%GROUP)" },
    {
      long: "msgId",
      short: "i",
      value: "ID",
      help: "only these messages: unique ids or offset ids, comma separated",
    },
    {
      long: "retry",
      help: "send to %RETRY%GROUP instead of the original topic: only GROUP consumes them again",
    },
    { long: "maxNum", short: "c", value: "MAX", help: "at most MAX messages (default 10000)" },
  ],
  async run(ctx) {
    const group = required(ctx, "consumerGroup");
    const dlq = opt(ctx, "topic") ?? `${DLQ_GROUP_TOPIC_PREFIX}${group}`;
    const toRetry = ctx.args.flags.has("retry");
    const limit = intOpt(ctx, "maxNum", 1, 1_000_000) ?? 10_000;
    const ids = opt(ctx, "msgId")
      ?.split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    const admin = await ctx.admin();
    const all = await readTopic(admin, dlq, ids ? Number.MAX_SAFE_INTEGER : limit);
    const picked = ids ? all.filter((m) => ids.includes(m.msgId) || ids.includes(m.offsetMsgId)) : all;
    if (ids) {
      const missing = ids.filter((id) => !picked.some((m) => m.msgId === id || m.offsetMsgId === id));
      if (missing.length > 0) throw new AdminFailure(`no message with id ${missing.join(", ")} in ${dlq}`);
    }
    const producer = await createProducer({
      namesrvAddr: ctx.namesrvAddr,
      log: admin.client.log,
      ...ctx.credentials,
      tls: ctx.tls,
    });
    ctx.closeLater(() => producer.shutdown());
    const out: Resent[] = [];
    for (const msg of picked.slice(0, limit)) {
      const topic = destinationOf(msg, group, toRetry);
      const base = { msgId: msg.msgId, dlqOffset: msg.queueOffset };
      if (topic === undefined) {
        out.push({ ...base, topic: "", sendStatus: "SKIPPED", reason: "no RETRY_TOPIC property" });
        continue;
      }
      const properties = encodeProperties(editProperties(Object.entries(msg.properties), {}, DROPPED));
      const r = await producer.sendEncoded({
        topic,
        body: msg.body,
        flag: msg.flag,
        properties,
        msgId: msg.msgId,
      });
      out.push({
        ...base,
        topic,
        sendStatus: r.sendStatus,
        queueId: r.messageQueue.queueId,
        queueOffset: r.queueOffset,
      });
    }
    ctx.print(out, () =>
      [
        table(
          ["#MsgId", "#DLQ Offset", "#To Topic", "#QID", "#Offset", "#Result"],
          out.map((r) => [
            r.msgId,
            r.dlqOffset,
            r.topic,
            r.queueId,
            r.queueOffset,
            r.reason ? `${r.sendStatus} (${r.reason})` : r.sendStatus,
          ]),
        ),
        "",
        `resent ${out.filter((r) => r.sendStatus !== "SKIPPED").length} of ${picked.length} message(s) from ${dlq}`,
      ].join("\n"),
    );
  },
};

export const dlqVerbs: readonly AdminVerb[] = [resendDlqMessage];
