/**
 * API keys (bearer tokens) with scopes per topic pattern. A scope is `action:pattern`, the action
 * one of produce, consume, admin (or `*`), the pattern a topic glob where `*` matches any run of
 * characters: `produce:orders-*`, `consume:*`, `admin:*`. Cluster-wide reads (cluster, groups) need
 * an admin scope whose pattern is `*`. With no keys configured every request is allowed.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { z } from "@hono/zod-openapi";
import { problems } from "./errors.ts";

export type Action = "produce" | "consume" | "admin";

interface Scope {
  readonly action: Action | "*";
  readonly pattern: RegExp;
  readonly everyTopic: boolean;
}

export interface ApiKey {
  readonly name: string;
  readonly scopes: readonly Scope[];
}

const SCOPE = /^(produce|consume|admin|\*)(?::([%|A-Za-z0-9_*-]+))?$/;

const KeysFile = z.object({
  keys: z
    .array(
      z.object({
        name: z.string().min(1),
        key: z.string().min(16, "a key needs at least 16 characters"),
        scopes: z.array(z.string().regex(SCOPE, "a scope is action:pattern, e.g. produce:orders-*")).min(1),
      }),
    )
    .min(1),
});

function parseScope(text: string): Scope {
  const [, action, pattern = "*"] = SCOPE.exec(text) ?? [];
  const source = pattern.replace(/[|%-]/g, "\\$&").replaceAll("*", ".*");
  return { action: action as Action | "*", pattern: new RegExp(`^${source}$`), everyTopic: pattern === "*" };
}

function digest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export class ApiKeys {
  /** sha256(key) → key: a lookup by digest, so no comparison leaks how much of a guess matched. */
  private readonly byDigest = new Map<string, ApiKey>();

  constructor(entries: readonly { name: string; key: string; scopes: readonly string[] }[]) {
    for (const e of entries) {
      const d = digest(e.key);
      if (this.byDigest.has(d)) throw new Error(`API key of ${e.name} is given twice`);
      this.byDigest.set(d, { name: e.name, scopes: e.scopes.map(parseScope) });
    }
  }

  get size(): number {
    return this.byDigest.size;
  }

  find(token: string): ApiKey | undefined {
    return this.byDigest.get(digest(token));
  }

  /** Reads and checks a keys file; every problem names the file. */
  static async load(file: string): Promise<ApiKeys> {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(file, "utf8"));
    } catch (err) {
      throw new Error(`gatewayApiKeysFile ${file}: ${(err as Error).message}`);
    }
    const parsed = KeysFile.safeParse(json);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
      throw new Error(`gatewayApiKeysFile ${file}: ${why}`);
    }
    return new ApiKeys(parsed.data.keys);
  }
}

/** The token of a request: `Authorization: Bearer <key>`, or `access_token` for browsers' WebSockets. */
export function presentedToken(
  authorization: string | undefined,
  queryToken: string | undefined,
): string | undefined {
  if (authorization !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return m?.[1];
  }
  return queryToken;
}

/** Who is calling, or a 401 problem; null when the gateway has no keys (everyone may do everything). */
export function authenticate(keys: ApiKeys | null, token: string | undefined): ApiKey | null {
  if (keys === null) return null;
  if (token === undefined) throw problems.unauthorized("send Authorization: Bearer <API key>");
  const key = keys.find(token);
  if (!key) throw problems.unauthorized("the API key is not known");
  return key;
}

/** Whether `key` may do `action` on `topic` (undefined: on the whole cluster). */
export function allows(key: ApiKey | null, action: Action, topic?: string): boolean {
  if (key === null) return true;
  return key.scopes.some(
    (s) =>
      (s.action === "*" || s.action === action) &&
      (topic === undefined ? s.everyTopic : s.pattern.test(topic)),
  );
}

/** Throws a 403 problem unless `key` may do `action` on `topic`. */
export function authorize(key: ApiKey | null, action: Action, topic?: string): void {
  if (allows(key, action, topic)) return;
  const what = topic === undefined ? "the cluster" : `topic ${topic}`;
  throw problems.forbidden(`API key ${key?.name} has no ${action} scope for ${what}`);
}

/** Throws a 403 problem unless `key` has some `action` scope (on any topic pattern). */
export function authorizeSome(key: ApiKey | null, action: Action): void {
  if (key === null || key.scopes.some((s) => s.action === "*" || s.action === action)) return;
  throw problems.forbidden(`API key ${key.name} has no ${action} scope`);
}

/** Topics a key may administer, from a list (topic listing shows only those). */
export function visibleTopics(key: ApiKey | null, topics: readonly string[]): string[] {
  return topics.filter((t) => allows(key, "admin", t));
}
