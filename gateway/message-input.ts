/**
 * Reading one produce request: the topic of the path, the JSON body, and the MessageInput it holds.
 * Shared by the Hono route and the fast path (fast-produce.ts), so both answer a bad request with
 * the same problem document.
 *
 * `parseMessageInput` first tries a hand-written check that accepts only inputs it can prove valid
 * (the common shape: text or base64 body, tags, keys, properties, sharding key, delayMs) and builds
 * what zod would give for them. Anything else, every invalid input included, goes to the zod
 * schema: the problems (their issues, order and words) are zod's own, whichever path asked.
 */
import type { z } from "@hono/zod-openapi";
import { GatewayProblem } from "./errors.ts";
import { hasSeparator, MessageInput, TIMER_MAX_DELAY_MS, TopicName } from "./schemas.ts";
import { validationProblem } from "./validation.ts";

/** Topics that passed the name rules, so a busy producer's topic is checked once (bounded). */
const legalTopics = new Set<string>();
const LEGAL_TOPICS_MAX = 10_000;

export function checkTopic(topic: string): string {
  if (legalTopics.has(topic)) return topic;
  parse(TopicName, topic, "param.topic");
  if (legalTopics.size >= LEGAL_TOPICS_MAX) legalTopics.clear();
  legalTopics.add(topic);
  return topic;
}

export function parse<T extends z.ZodType>(schema: T, value: unknown, where: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw validationProblem(r.error, where);
  return r.data;
}

export function isJson(contentType: string | null | undefined): boolean {
  return (
    contentType !== undefined &&
    contentType !== null &&
    /^application\/([a-z0-9.+-]+\+)?json\b/i.test(contentType)
  );
}

/** The request's body as JSON; a 400 problem when it is not JSON. Not async: one promise layer fewer. */
export function readJson(req: Request): Promise<unknown> {
  return req.text().then(parseJson);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayProblem({
      status: 400,
      slug: "bad-request",
      title: "Bad request",
      detail: "Malformed JSON in request body",
    });
  }
}

/** A JSON produce body as a MessageInput; throws the schema's 400 problem when it is not one. */
export function parseMessageInput(json: unknown): MessageInput {
  return plainMessageInput(json) ?? parse(MessageInput, json, "json");
}

/** The fields `plainMessageInput` proves valid; any other field sends the input to zod. */
const PLAIN_FIELDS = new Set([
  "body",
  "bodyEncoding",
  "tags",
  "keys",
  "properties",
  "shardingKey",
  "delayMs",
]);
const TEXT_MAX = 255;
const VALUE_MAX = 32_767;
const KEYS_MAX = 32;
const WHITESPACE = /\s/;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
const plainText = (v: unknown, max: number): v is string =>
  typeof v === "string" && v.length <= max && !hasSeparator(v);
const plainKey = (v: unknown): v is string => plainText(v, TEXT_MAX) && !WHITESPACE.test(v);

/**
 * The MessageInput zod would parse `v` into, or null when `v` is not plainly valid (then zod
 * decides, and explains). Never accepts what the schema refuses: every rule of MessageInput that
 * a plain field is under is checked here.
 */
export function plainMessageInput(v: unknown): MessageInput | null {
  if (!isRecord(v)) return null;
  for (const name in v) if (!PLAIN_FIELDS.has(name)) return null;
  const { body, bodyEncoding, tags, keys, properties, shardingKey, delayMs } = v;
  if (typeof body !== "string") return null;
  if (bodyEncoding !== undefined && bodyEncoding !== "text" && bodyEncoding !== "base64") return null;
  const out: MessageInput = { body, bodyEncoding: bodyEncoding ?? "text" };
  if (tags !== undefined) {
    if (!plainText(tags, TEXT_MAX)) return null;
    out.tags = tags;
  }
  if (keys !== undefined) {
    if (Array.isArray(keys)) {
      if (keys.length > KEYS_MAX || !keys.every(plainKey)) return null;
    } else if (!plainKey(keys)) return null;
    out.keys = keys;
  }
  if (properties !== undefined) {
    if (!isRecord(properties)) return null;
    const copy: Record<string, string> = {};
    for (const name of Object.keys(properties)) {
      const value = properties[name];
      if (name.length === 0 || name === "__proto__" || !plainText(name, TEXT_MAX)) return null;
      if (!plainText(value, VALUE_MAX)) return null;
      copy[name] = value;
    }
    out.properties = copy;
  }
  if (shardingKey !== undefined) {
    if (!plainText(shardingKey, TEXT_MAX)) return null;
    out.shardingKey = shardingKey;
  }
  if (delayMs !== undefined) {
    if (
      typeof delayMs !== "number" ||
      !Number.isSafeInteger(delayMs) ||
      delayMs < 0 ||
      delayMs > TIMER_MAX_DELAY_MS
    )
      return null;
    out.delayMs = delayMs;
  }
  return out;
}
