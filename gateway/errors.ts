/**
 * Every error the gateway answers, as RFC 9457 problem details (`application/problem+json`), and the
 * ONE table from RocketMQ response codes to HTTP statuses (style habit 8). Routes throw; `app.onError`,
 * the validation hook and the WebSocket error frames all come through `toProblem`.
 */
import { HTTPException } from "hono/http-exception";
import { MQClientError } from "../src/client/errors.ts";
import { ResponseCode, responseCodeName } from "../src/remoting/index.ts";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";
/** Problem types are URNs: stable identifiers that need no web site to resolve. */
const TYPE_PREFIX = "urn:rocketbun:problem:";

interface CodeMapping {
  readonly status: number;
  readonly slug: string;
  readonly title: string;
  /** The client may repeat the same request later: 429/503 carry Retry-After. */
  readonly retry?: boolean;
}

/**
 * RocketMQ response code (or the client's RPC_* code for transport failures) → HTTP. A code not
 * listed is an upstream failure the gateway cannot explain better: 502.
 */
export const RESPONSE_CODE_HTTP: ReadonlyMap<number, CodeMapping> = new Map<number, CodeMapping>([
  [ResponseCode.SYSTEM_ERROR, { status: 502, slug: "broker-error", title: "The broker failed the request" }],
  [ResponseCode.SYSTEM_BUSY, { status: 429, slug: "broker-busy", title: "The broker is busy", retry: true }],
  [ResponseCode.FLOW_CONTROL, { status: 429, slug: "broker-busy", title: "The broker is busy", retry: true }],
  [ResponseCode.POLLING_FULL, { status: 429, slug: "broker-busy", title: "The broker is busy", retry: true }],
  [
    ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
    { status: 501, slug: "not-supported-by-broker", title: "The broker does not support this request" },
  ],
  [
    ResponseCode.MESSAGE_ILLEGAL,
    { status: 400, slug: "message-illegal", title: "The broker refused the message" },
  ],
  [
    ResponseCode.SERVICE_NOT_AVAILABLE,
    { status: 503, slug: "broker-unavailable", title: "The broker cannot serve now", retry: true },
  ],
  [
    ResponseCode.VERSION_NOT_SUPPORTED,
    { status: 502, slug: "broker-error", title: "The broker failed the request" },
  ],
  [
    ResponseCode.NO_PERMISSION,
    { status: 403, slug: "broker-forbidden", title: "The broker refused permission" },
  ],
  [ResponseCode.TOPIC_NOT_EXIST, { status: 404, slug: "topic-not-found", title: "No such topic" }],
  [
    ResponseCode.TOPIC_EXIST_ALREADY,
    { status: 409, slug: "topic-exists", title: "The topic exists already" },
  ],
  [ResponseCode.QUERY_NOT_FOUND, { status: 404, slug: "not-found", title: "Nothing matched" }],
  [
    ResponseCode.SUBSCRIPTION_PARSE_FAILED,
    { status: 400, slug: "bad-tag-expression", title: "The tag expression does not parse" },
  ],
  [
    ResponseCode.SUBSCRIPTION_NOT_EXIST,
    { status: 404, slug: "group-not-found", title: "No such subscription" },
  ],
  [
    ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
    { status: 404, slug: "group-not-found", title: "No such group" },
  ],
  [ResponseCode.INVALID_PARAMETER, { status: 400, slug: "invalid-parameter", title: "Invalid parameter" }],
  [
    ResponseCode.CONSUMER_NOT_ONLINE,
    { status: 404, slug: "consumer-not-online", title: "No consumer is online" },
  ],
  [ResponseCode.NO_MESSAGE, { status: 404, slug: "no-message", title: "No message" }],
  [
    ResponseCode.RPC_SEND_TO_CHANNEL_FAILED,
    { status: 503, slug: "broker-unreachable", title: "The broker cannot be reached", retry: true },
  ],
  [
    ResponseCode.RPC_ADDR_IS_NULL,
    { status: 503, slug: "broker-unreachable", title: "The broker cannot be reached", retry: true },
  ],
  [
    ResponseCode.RPC_TIME_OUT,
    { status: 504, slug: "broker-timeout", title: "The broker did not answer in time" },
  ],
]);

const UPSTREAM: CodeMapping = { status: 502, slug: "broker-error", title: "The broker failed the request" };

export interface ProblemInit {
  status: number;
  slug: string;
  title: string;
  detail?: string;
  /** The RocketMQ response code behind the problem, when there is one. */
  code?: number;
  retryAfterSeconds?: number;
  /** Extension members (RFC 9457 §3.2), e.g. `errors` of a validation failure. */
  extra?: Record<string, unknown>;
}

/** A problem a route throws; its fields become the problem document. */
export class GatewayProblem extends Error {
  override name = "GatewayProblem";
  constructor(readonly init: ProblemInit) {
    super(init.detail ?? init.title);
  }
}

/** Shorthands for the problems the gateway raises itself. */
export const problems = {
  badRequest: (detail: string, extra?: Record<string, unknown>) =>
    new GatewayProblem({
      status: 400,
      slug: "bad-request",
      title: "Bad request",
      detail,
      ...(extra ? { extra } : {}),
    }),
  unauthorized: (detail: string) =>
    new GatewayProblem({ status: 401, slug: "unauthorized", title: "API key required", detail }),
  forbidden: (detail: string) =>
    new GatewayProblem({ status: 403, slug: "forbidden", title: "Not allowed", detail }),
  notFound: (detail: string) =>
    new GatewayProblem({ status: 404, slug: "not-found", title: "Not found", detail }),
  tooLarge: (detail: string) =>
    new GatewayProblem({ status: 413, slug: "too-large", title: "Request too large", detail }),
  upgradeRequired: (detail: string) =>
    new GatewayProblem({
      status: 426,
      slug: "upgrade-required",
      title: "WebSocket upgrade required",
      detail,
    }),
  /** The broker behind lacks what the request needs (an older RocketMQ). */
  unsupportedByBroker: (slug: string, title: string, detail: string, capability: string) =>
    new GatewayProblem({ status: 501, slug, title, detail, extra: { missingCapability: capability } }),
};

/** Any thrown value as problem fields; `retryAfterSeconds` is what busy and unavailable answers carry. */
export function toProblem(err: unknown, retryAfterSeconds: number): ProblemInit {
  if (err instanceof GatewayProblem) return err.init;
  if (err instanceof MQClientError) {
    const m = RESPONSE_CODE_HTTP.get(err.code) ?? UPSTREAM;
    return {
      status: m.status,
      slug: m.slug,
      title: m.title,
      detail: err.remark || err.message,
      code: err.code,
      ...(m.retry ? { retryAfterSeconds } : {}),
      extra: { codeName: responseCodeName(err.code) },
    };
  }
  if (err instanceof HTTPException) {
    // Hono's own refusals: malformed JSON (400), unsupported media type (415), body limit (413).
    const status = err.status;
    return {
      status,
      slug: httpSlug(status),
      title: httpTitle(status),
      detail: err.message || httpTitle(status),
    };
  }
  return {
    status: 500,
    slug: "internal",
    title: "Internal gateway error",
    detail: "the gateway failed; see its log",
  };
}

function httpSlug(status: number): string {
  return (
    {
      400: "bad-request",
      401: "unauthorized",
      404: "not-found",
      413: "too-large",
      415: "unsupported-media-type",
    }[status] ?? `http-${status}`
  );
}

function httpTitle(status: number): string {
  return (
    {
      400: "Bad request",
      401: "API key required",
      404: "Not found",
      405: "Method not allowed",
      413: "Request too large",
      415: "Unsupported media type",
    }[status] ?? "Request failed"
  );
}

/** The problem document (RFC 9457 members first, then ours). */
export function problemBody(p: ProblemInit, instance: string, requestId: string): Record<string, unknown> {
  return {
    type: TYPE_PREFIX + p.slug,
    title: p.title,
    status: p.status,
    ...(p.detail !== undefined ? { detail: p.detail } : {}),
    instance,
    requestId,
    ...(p.code !== undefined ? { code: p.code } : {}),
    ...p.extra,
  };
}

/** The HTTP answer of a problem, with Retry-After when the client should come back later. */
export function problemResponse(p: ProblemInit, instance: string, requestId: string): Response {
  const headers: Record<string, string> = { "content-type": PROBLEM_CONTENT_TYPE, "x-request-id": requestId };
  if (p.retryAfterSeconds !== undefined) headers["retry-after"] = String(p.retryAfterSeconds);
  return new Response(JSON.stringify(problemBody(p, instance, requestId)), { status: p.status, headers });
}
