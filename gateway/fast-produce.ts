/**
 * The fast path of the hottest route: `POST /v1/topics/{topic}/messages` with a JSON body, served
 * from Bun.serve's fetch before the Hono app (no router, context or middleware chain, which cost
 * about as much as the rest of a produce). It answers exactly what the app answers: the same
 * checks in the same order (topic, scope, body, schema through message-input.ts), the same
 * problem documents (app.ts errorResponse), the same x-request-id, metrics and request log
 * (middleware.ts finishRequest).
 *
 * It takes only the plain case and leaves everything else to the app, before reading the body:
 * CORS configured, a query string, a percent-encoded or odd path, no Content-Length (or a
 * Transfer-Encoding), a body over the size limit, a content type other than JSON, and an API key
 * that does not authenticate (the app answers those 401s and 413s from its middleware).
 */
import { errorResponse } from "./app.ts";
import { type ApiKey, authenticate, authorize, presentedToken } from "./auth.ts";
import type { GatewayDeps } from "./context.ts";
import { checkTopic, isJson, parseMessageInput, readJson } from "./message-input.ts";
import { finishRequest, requestIdOf, requestIdsOf } from "./middleware.ts";
import { produceOutcome, sendAnswerWriter } from "./produce-one.ts";

/** A response for a request it takes; null: the app serves the request. */
export type FastRoute = (req: Request) => Promise<Response> | null;

const PREFIX = "/v1/topics/";
const SUFFIX = "/messages";
/** The route's pattern, as the app's metrics and logs name it (Hono's routePath). */
const ROUTE = "/v1/topics/:topic/messages";

/** null when the app must serve every request (CORS is configured). */
export function fastProduce(deps: GatewayDeps): FastRoute | null {
  if (deps.options.corsOrigins !== null) return null;
  const max = deps.options.requestBytesMax;
  const send = produceOutcome(deps);
  const answerJson = sendAnswerWriter();
  const nextId = requestIdsOf(deps);
  /** The last Content-Type that passed isJson: clients send the same one on every request. */
  let jsonType: string | undefined;

  async function serve(req: Request, path: string, topic: string, apiKey: ApiKey | null) {
    const started = performance.now();
    const requestId = requestIdOf(req.headers.get("x-request-id"), nextId);
    let res: Response;
    try {
      checkTopic(topic);
      authorize(apiKey, "produce", topic);
      const input = parseMessageInput(await readJson(req));
      const result = await send(topic, input);
      res = new Response(answerJson(topic, result), {
        status: 201,
        headers: { "content-type": "application/json", "x-request-id": requestId },
      });
    } catch (err) {
      res = errorResponse(deps, err, path, requestId);
    }
    finishRequest(deps, "POST", path, ROUTE, res.status, requestId, started);
    return res;
  }

  return (req) => {
    if (req.method !== "POST") return null;
    const path = plainPath(req.url);
    if (path === null) return null;
    const topic = topicOf(path);
    if (topic === null) return null;
    const headers = req.headers;
    const length = headers.get("content-length");
    // Number("") is 0 and Number("abc") NaN: only a plain length within the limit stays here.
    if (length === null || length === "" || !(Number(length) <= max) || headers.has("transfer-encoding"))
      return null;
    const contentType = headers.get("content-type");
    if (contentType !== jsonType) {
      if (!isJson(contentType)) return null;
      jsonType = contentType ?? undefined;
    }
    let apiKey: ApiKey | null = null;
    if (deps.apiKeys !== null) {
      try {
        apiKey = authenticate(
          deps.apiKeys,
          presentedToken(headers.get("authorization") ?? undefined, undefined),
        );
      } catch {
        return null;
      }
    }
    return serve(req, path, topic, apiKey);
  };
}

/** The path of an absolute URL; null when it has a query, a fragment or a percent escape. */
function plainPath(url: string): string | null {
  // As Hono finds it (utils/url getPath): the first "/" past the scheme's "://" and a host character.
  const start = url.indexOf("/", url.indexOf(":") + 4);
  if (start < 0) return null;
  for (let i = start; i < url.length; i++) {
    const ch = url.charCodeAt(i);
    // %, ?, #
    if (ch === 37 || ch === 63 || ch === 35) return null;
  }
  return url.slice(start);
}

/** The {topic} of `/v1/topics/{topic}/messages`; null for any other path. */
function topicOf(path: string): string | null {
  if (!path.startsWith(PREFIX) || !path.endsWith(SUFFIX)) return null;
  const topic = path.slice(PREFIX.length, path.length - SUFFIX.length);
  return topic.length === 0 || topic.includes("/") ? null : topic;
}
