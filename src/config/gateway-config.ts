/**
 * The Gateway's keys (RocketBun's own): where the HTTP/WebSocket edge listens, which NameServers it
 * resolves routes from, the credentials it signs broker requests with, who may call it, and the
 * limits every request and socket is held to (style habit 10: a limit on everything, unit last).
 */
import { checkAddressList } from "./checks.ts";
import { DEFAULT_NAMESRV_PORT } from "./namesrv-config.ts";
import { type ConfigOf, defineSection } from "./schema.ts";

export const DEFAULT_GATEWAY_PORT = 8080;
export const DEFAULT_GATEWAY_NAMESRV_ADDR = `127.0.0.1:${DEFAULT_NAMESRV_PORT}`;
/** RocketMQ's default maxMessageSize: a decoded message body may be this large. */
export const DEFAULT_GATEWAY_MESSAGE_BYTES_MAX = 4 * 1024 * 1024;
/** A whole HTTP request (or WS frame): room for a 4 MiB body in base64 plus its JSON. */
export const DEFAULT_GATEWAY_REQUEST_BYTES_MAX = 8 * 1024 * 1024;
/** Java's BROKER_SUSPEND_MAX_TIME_MILLIS is 15 s; the issue asks for up to 30 s of long polling. */
export const DEFAULT_GATEWAY_PULL_WAIT_MS_MAX = 30_000;

/** Origins separated by commas, or `*`; empty turns CORS off. */
function checkOrigins(value: string): string | undefined {
  if (value === "" || value === "*") return undefined;
  for (const o of value.split(",")) {
    if (!/^https?:\/\/[^\s/]+$/.test(o.trim()))
      return `${JSON.stringify(o)} is not an origin like https://app.example`;
  }
  return undefined;
}

export const gatewayConfig = defineSection("gatewayConfig", {
  gatewayPort: {
    type: "int",
    default: DEFAULT_GATEWAY_PORT,
    min: 0,
    max: 65535,
    important: true,
    doc: "HTTP port; env ROCKETBUN_GATEWAY_PORT, flags --port / --gateway-port",
  },
  gatewayBindAddress: { type: "string", default: "0.0.0.0", doc: "address the HTTP server binds" },
  namesrvAddr: {
    type: "string",
    default: DEFAULT_GATEWAY_NAMESRV_ADDR,
    important: true,
    check: checkAddressList,
    doc: "NameServers as host:port;host:port; env NAMESRV_ADDR, flag --namesrv",
  },
  gatewayAccessKey: {
    type: "string",
    default: "",
    doc: "ACL 1.0 access key the gateway signs broker and NameServer requests with (brokers with aclEnable)",
  },
  gatewaySecretKey: {
    type: "string",
    default: "",
    secret: true,
    doc: "secret key paired with gatewayAccessKey",
  },
  gatewayHandleSecret: {
    type: "string",
    default: "",
    secret: true,
    doc: "HMAC key signing the receipt handles of HTTP/WS leases; gateways sharing it ack each other's handles. Empty: a random key per process (handles die with it)",
  },
  gatewayApiKeysFile: {
    type: "string",
    default: "",
    important: true,
    doc: 'JSON file of API keys: {"keys":[{"name","key","scopes":["produce:orders*","consume:*","admin:*"]}]}; empty: no keys asked',
  },
  gatewayCorsOrigins: {
    type: "string",
    default: "",
    check: checkOrigins,
    doc: "origins browsers may call from, comma separated, or *; empty: no CORS headers",
  },
  gatewayRequestBytesMax: {
    type: "int",
    default: DEFAULT_GATEWAY_REQUEST_BYTES_MAX,
    min: 1024,
    doc: "largest HTTP request body or WebSocket frame; more is refused with 413 / close 1009",
  },
  gatewayMessageBytesMax: {
    type: "int",
    default: DEFAULT_GATEWAY_MESSAGE_BYTES_MAX,
    min: 1,
    doc: "largest message body after decoding (base64)",
  },
  gatewayBatchItemsMax: {
    type: "int",
    default: 256,
    min: 1,
    max: 10_000,
    doc: "messages in one batch request",
  },
  gatewayPullWaitMsMax: {
    type: "int",
    default: DEFAULT_GATEWAY_PULL_WAIT_MS_MAX,
    min: 0,
    max: 60_000,
    doc: "longest waitMs a replay read may hold (long polling)",
  },
  gatewayPullMessagesMax: {
    type: "int",
    default: 256,
    min: 1,
    max: 1024,
    doc: "largest max of one replay read",
  },
  gatewaySendTimeoutMs: { type: "int", default: 3000, min: 100, doc: "one send, retries included" },
  gatewayRetryAfterSeconds: {
    type: "int",
    default: 1,
    min: 0,
    doc: "Retry-After of 429/503 answers when the broker is busy or away",
  },
  gatewayProducerGroup: { type: "string", default: "GATEWAY_PRODUCER", doc: "producer group of the gateway" },
  gatewayReplayGroup: {
    type: "string",
    default: "GATEWAY_REPLAY",
    doc: "group named in offset reads (no offsets are ever committed for it)",
  },
  gatewayWsInflightMax: {
    type: "int",
    default: 64,
    min: 1,
    doc: "publishes of one WebSocket awaiting the broker; more are refused per frame",
  },
  gatewayWsBufferedBytesMax: {
    type: "int",
    default: 1024 * 1024,
    min: 1024,
    doc: "bytes queued towards one slow WebSocket before it is closed",
  },
  gatewayWsSubscriptionsMax: {
    type: "int",
    default: 16,
    min: 1,
    max: 1024,
    doc: "subscriptions one WebSocket may hold",
  },
  gatewayWsCreditMax: {
    type: "int",
    default: 1024,
    min: 1,
    max: 65_536,
    doc: "largest credit (messages pushed before the client tops it up) of one subscription",
  },
});

export type GatewayConfig = ConfigOf<typeof gatewayConfig>;
