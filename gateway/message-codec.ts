/**
 * Messages between JSON and the client: a validated MessageInput (or a raw body with `mq-*`
 * headers) into what the cluster sends, and a received MessageExt into the JSON a reader gets.
 * Bodies round-trip byte for byte: base64 both ways, or text only when the bytes are valid UTF-8.
 */
import { type MessageExt, userProperties } from "../src/client/message.ts";
import type { OutgoingMessage, SendTarget } from "./cluster.ts";
import { problems } from "./errors.ts";
import { instantMs, type MessageInput, TIMER_MAX_DELAY_MS } from "./schemas.ts";

const utf8 = new TextEncoder();
/** fatal: invalid bytes are detected, not replaced; ignoreBOM: a leading BOM is kept, not eaten. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder("utf-8", { ignoreBOM: true });
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface DecodedInput {
  msg: OutgoingMessage;
  target: SendTarget;
}

/**
 * Throws a 400/413 problem for a body that does not decode or is out of bounds. `raw` is the body of
 * a raw-body request, whose other fields came from headers.
 */
export function decodeInput(
  m: MessageInput,
  bodyBytesMax: number,
  raw?: Uint8Array,
  now = Date.now(),
): DecodedInput {
  const body = raw ?? (m.bodyEncoding === "base64" ? decodeBase64(m.body) : utf8.encode(m.body));
  checkBody(body, bodyBytesMax);
  const msg: OutgoingMessage = { body };
  if (m.tags !== undefined && m.tags !== "") msg.tags = m.tags;
  if (m.keys !== undefined) msg.keys = typeof m.keys === "string" ? [m.keys] : [...m.keys];
  if (m.properties !== undefined) msg.properties = m.properties;
  if (m.delayMs !== undefined && m.delayMs > 0) msg.delayMs = m.delayMs;
  if (m.deliverAt !== undefined) {
    const at = instantMs(m.deliverAt);
    // A time in the past is an ordinary message (as the spec's __STARTDELIVERTIME rule says).
    if (at - now > TIMER_MAX_DELAY_MS)
      throw problems.badRequest("deliverAt is more than 3 days ahead (RocketMQ's timer horizon)");
    if (at > now) msg.deliverAtMs = at;
  }
  return { msg, target: m.shardingKey !== undefined ? { shardingKey: m.shardingKey } : {} };
}

export function checkBody(body: Uint8Array, bodyBytesMax: number): void {
  if (body.length === 0)
    throw problems.badRequest("the message body is empty (RocketMQ refuses empty bodies)");
  if (body.length > bodyBytesMax)
    throw problems.tooLarge(
      `the message body has ${body.length} bytes, more than the ${bodyBytesMax} allowed`,
    );
}

function decodeBase64(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, "");
  if (clean.length % 4 !== 0 || !BASE64.test(clean)) throw problems.badRequest("body is not valid base64");
  return Uint8Array.from(Buffer.from(clean, "base64"));
}

/** The `mq-*` headers of a raw-body produce, parsed as the JSON fields would be. */
export interface RawHeaders {
  "mq-tags"?: string | undefined;
  "mq-keys"?: string | undefined;
  "mq-sharding-key"?: string | undefined;
  "mq-delay-ms"?: string | undefined;
  "mq-deliver-at"?: string | undefined;
  "mq-properties"?: string | undefined;
}

/**
 * The headers of a raw-body request as the fields of a JSON message (body left empty), so that the
 * same schema validates both.
 */
export function rawHeadersToInput(h: RawHeaders): Record<string, unknown> {
  const out: Record<string, unknown> = { body: "", bodyEncoding: "text" };
  if (h["mq-tags"] !== undefined) out.tags = h["mq-tags"];
  if (h["mq-keys"] !== undefined) out.keys = h["mq-keys"].split(/[\s,]+/).filter((k) => k.length > 0);
  if (h["mq-sharding-key"] !== undefined) out.shardingKey = h["mq-sharding-key"];
  if (h["mq-delay-ms"] !== undefined) out.delayMs = integerHeader("mq-delay-ms", h["mq-delay-ms"]);
  if (h["mq-deliver-at"] !== undefined) {
    const v = h["mq-deliver-at"];
    out.deliverAt = /^\d+$/.test(v) ? integerHeader("mq-deliver-at", v) : v;
  }
  if (h["mq-properties"] !== undefined)
    out.properties = Object.fromEntries(new URLSearchParams(h["mq-properties"]));
  return out;
}

function integerHeader(name: string, v: string): number {
  if (!/^\d{1,15}$/.test(v.trim())) throw problems.badRequest(`header ${name} is not a non-negative integer`);
  return Number(v.trim());
}

export type BodyEncoding = "auto" | "text" | "base64";

/** A received message as JSON. */
export interface MessageOutput {
  msgId: string;
  offsetMsgId: string;
  topic: string;
  brokerName: string;
  queueId: number;
  queueOffset: number;
  keys: string[];
  properties: Record<string, string>;
  body: string;
  bodyEncoding: "text" | "base64";
  bornTimestamp: number;
  storeTimestamp: number;
  bornHost: string;
  storeHost: string;
  reconsumeTimes: number;
  tags?: string;
}

/** A received message as JSON; `encoding` picks how the body is written. */
export function encodeOutput(m: MessageExt, encoding: BodyEncoding): MessageOutput {
  const body = bodyText(m.body, encoding);
  // Built in one object, tags added last (absent when the message has none): the WebSocket push
  // does this per message.
  const out: MessageOutput = {
    msgId: m.msgId,
    offsetMsgId: m.offsetMsgId,
    topic: m.topic,
    brokerName: m.brokerName,
    queueId: m.queueId,
    queueOffset: m.queueOffset,
    keys: m.keys,
    properties: userProperties(m),
    body: body.text,
    bodyEncoding: body.encoding,
    bornTimestamp: m.bornTimestamp,
    storeTimestamp: m.storeTimestamp,
    bornHost: m.bornHost,
    storeHost: m.storeHost,
    reconsumeTimes: m.reconsumeTimes,
  };
  if (m.tags !== undefined) out.tags = m.tags;
  return out;
}

function bodyText(bytes: Uint8Array, encoding: BodyEncoding): { text: string; encoding: "text" | "base64" } {
  if (encoding === "text") return { text: lenientUtf8.decode(bytes), encoding: "text" };
  if (encoding === "auto") {
    try {
      return { text: strictUtf8.decode(bytes), encoding: "text" };
    } catch {
      // not UTF-8: base64 keeps every byte
    }
  }
  return {
    text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
    encoding: "base64",
  };
}
