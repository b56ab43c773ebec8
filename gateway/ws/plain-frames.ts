/**
 * The frames a subscriber sends most, read without zod when they are plainly valid: the head of
 * every frame (type and id), ack / nack / extend frames, which carry up to 64 handles each, and
 * the credit top-ups that go with them.
 * As message-input.ts does for produce bodies, each check accepts only what it can prove the zod
 * schema (frames.ts) accepts, and builds what zod would give; anything else, every invalid frame
 * included, goes to zod, so problems are zod's own.
 */
import { HANDLE_CHARS_MAX } from "../receipt-handle.ts";
import { type FrameIdValue, FRAME_LIMITS as L } from "./frames.ts";

export interface FrameHeadValue {
  type: string;
  id?: FrameIdValue;
}

export interface SettleFrameValue {
  type: "ack" | "nack" | "extend";
  id?: FrameIdValue;
  receiptHandle?: string;
  receiptHandles?: string[];
  delayMs: number;
  invisibleMs: number;
}

export interface CreditFrameValue {
  type: "credit";
  id?: FrameIdValue;
  subscription: string;
  credit: number;
}

const CREDIT_FIELDS = new Set(["type", "id", "subscription", "credit"]);
const SETTLE_TYPES = new Set(["ack", "nack", "extend"]);
const SETTLE_FIELDS = new Set(["type", "id", "receiptHandle", "receiptHandles", "delayMs", "invisibleMs"]);

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
/** FrameId: a string of at most 128 characters or a (safe) integer. */
const plainId = (v: unknown): v is FrameIdValue =>
  (typeof v === "string" && v.length <= L.idChars) || Number.isSafeInteger(v);
const plainHandle = (v: unknown): v is string =>
  typeof v === "string" && v.length >= 1 && v.length <= HANDLE_CHARS_MAX;
const plainMs = (v: unknown, min: number): v is number =>
  Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= L.invisibleMsMax;

/** FrameHead's parse of `v`, or null when zod must decide. */
export function plainFrameHead(v: unknown): FrameHeadValue | null {
  if (!isRecord(v)) return null;
  const { type, id } = v;
  if (typeof type !== "string" || type.length > L.typeChars) return null;
  if (id === undefined) return { type };
  return plainId(id) ? { type, id } : null;
}

/** SettleFrame's parse of `v`, or null when zod must decide. */
export function plainSettleFrame(v: unknown): SettleFrameValue | null {
  if (!isRecord(v)) return null;
  for (const name in v) if (!SETTLE_FIELDS.has(name)) return null;
  const { type, id, receiptHandle, receiptHandles, delayMs, invisibleMs } = v;
  if (typeof type !== "string" || !SETTLE_TYPES.has(type)) return null;
  if (id !== undefined && !plainId(id)) return null;
  if ((receiptHandle === undefined) === (receiptHandles === undefined)) return null;
  if (receiptHandle !== undefined && !plainHandle(receiptHandle)) return null;
  if (
    receiptHandles !== undefined &&
    (!Array.isArray(receiptHandles) ||
      receiptHandles.length < 1 ||
      receiptHandles.length > L.handlesPerFrame ||
      !receiptHandles.every(plainHandle))
  )
    return null;
  if (delayMs !== undefined && !plainMs(delayMs, 0)) return null;
  if (invisibleMs !== undefined && !plainMs(invisibleMs, L.invisibleMsMin)) return null;
  const out: SettleFrameValue = {
    type: type as SettleFrameValue["type"],
    delayMs: delayMs ?? 0,
    invisibleMs: invisibleMs ?? L.invisibleMsDefault,
  };
  if (id !== undefined) out.id = id;
  if (receiptHandle !== undefined) out.receiptHandle = receiptHandle;
  if (receiptHandles !== undefined) out.receiptHandles = receiptHandles as string[];
  return out;
}

/** creditFrame(creditMax)'s parse of `v`, or null when zod must decide. */
export function plainCreditFrame(v: unknown, creditMax: number): CreditFrameValue | null {
  if (!isRecord(v)) return null;
  for (const name in v) if (!CREDIT_FIELDS.has(name)) return null;
  const { type, id, subscription, credit } = v;
  if (type !== "credit") return null;
  if (id !== undefined && !plainId(id)) return null;
  if (
    typeof subscription !== "string" ||
    subscription.length < 1 ||
    subscription.length > L.subscriptionChars
  )
    return null;
  if (!Number.isSafeInteger(credit) || (credit as number) < 1 || (credit as number) > creditMax) return null;
  const out: CreditFrameValue = { type, subscription, credit: credit as number };
  if (id !== undefined) out.id = id;
  return out;
}
