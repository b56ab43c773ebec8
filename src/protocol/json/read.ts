/**
 * Typed field readers over parsed JSON, for decoding RocketMQ bodies. They are as lenient as
 * fastjson's bean mapping (a number may arrive as a numeric string, a long as a bigint) and name
 * the offending path when a field has the wrong shape.
 */
import type { JsonObject, JsonValue } from "./parse.ts";

/** A body that parsed as JSON but does not have the expected shape. */
export class BodyShapeError extends Error {
  override name = "BodyShapeError";
}

/** A Java long as read: a number when it fits 2^53 exactly, a bigint otherwise. */
export type Long = number | bigint;

function fail(path: string, want: string, got: unknown): never {
  const shown = typeof got === "bigint" ? `${got}` : JSON.stringify(got);
  throw new BodyShapeError(`${path}: expected ${want}, got ${shown?.slice(0, 60)}`);
}

export function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function asObject(v: JsonValue | undefined, path: string): JsonObject {
  if (!isObject(v)) fail(path, "an object", v);
  return v;
}

/** An object, or an empty one when the field is absent or null (Java's field initialisers). */
export function asObjectOrEmpty(v: JsonValue | undefined, path: string): JsonObject {
  return v === undefined || v === null ? {} : asObject(v, path);
}

export function asArrayOrEmpty(v: JsonValue | undefined, path: string): JsonValue[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(path, "an array", v);
  return v;
}

export function asString(v: JsonValue | undefined, path: string): string {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return String(v);
  return fail(path, "a string", v);
}

export function asOptionalString(v: JsonValue | undefined, path: string): string | undefined {
  return v === undefined || v === null ? undefined : asString(v, path);
}

const INT_TEXT = /^[+-]?\d+$/;

export function asLong(v: JsonValue | undefined, path: string, fallback?: Long): Long {
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    return fail(path, "a number", v);
  }
  if (typeof v === "number" && Number.isInteger(v)) return v;
  if (typeof v === "bigint") return v;
  if (typeof v === "string" && INT_TEXT.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : BigInt(v);
  }
  return fail(path, "an integer", v);
}

export function asInt(v: JsonValue | undefined, path: string, fallback?: number): number {
  const n = asLong(v, path, fallback);
  if (typeof n === "bigint" || n > 0x7fffffff || n < -0x80000000) return fail(path, "a 32-bit integer", v);
  return n;
}

export function asBool(v: JsonValue | undefined, path: string, fallback?: boolean): boolean {
  if (typeof v === "boolean") return v;
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    return fail(path, "a boolean", v);
  }
  if (v === "true" || v === "false") return v === "true";
  if (v === 1 || v === 0) return v === 1;
  return fail(path, "a boolean", v);
}
