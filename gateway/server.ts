/**
 * startGateway: the gateway as a running server. Builds the cluster client (in process or TCP, by
 * the connector given), loads the API keys, serves the app and the WebSocket on Bun.serve (JSON
 * produce through its fast path first), and warns loudly when it listens beyond loopback with no API keys.
 */
import type { Logger } from "pino";
import type { GatewayConfig } from "../src/config/gateway-config.ts";
import type { Connector } from "../src/remoting/index.ts";
import { createGateway } from "./app.ts";
import { ApiKeys } from "./auth.ts";
import type { Cluster } from "./cluster.ts";
import { createClientCluster } from "./cluster-client.ts";
import { type GatewayDeps, optionsFromConfig } from "./context.ts";
import { fastProduce } from "./fast-produce.ts";
import { GatewayMetrics } from "./metrics.ts";
import { HandleSigner } from "./receipt-handle.ts";
import { createWsHandler, type WsData } from "./ws/socket.ts";

export interface RunningGateway {
  readonly port: number;
  readonly url: string;
  readonly deps: GatewayDeps;
  stop(): Promise<void>;
}

export interface StartGatewayOptions {
  log: Logger;
  /** How the client reaches NameServer and brokers; default TCP. */
  connector?: Connector;
  /** A cluster to use instead of one built from the config (tests). */
  cluster?: Cluster;
}

/** Beyond the hold itself: time for the broker's answer and the HTTP response. */
const IDLE_MARGIN_SECONDS = 10;
/** Bun's largest idleTimeout. */
const IDLE_SECONDS_MAX = 255;

export async function startGateway(config: GatewayConfig, o: StartGatewayOptions): Promise<RunningGateway> {
  const log = o.log;
  const apiKeys = config.gatewayApiKeysFile === "" ? null : await ApiKeys.load(config.gatewayApiKeysFile);
  const options = optionsFromConfig(config);
  const cluster =
    o.cluster ??
    (await createClientCluster({
      namesrvAddr: config.namesrvAddr,
      ...(o.connector ? { connector: o.connector } : {}),
      ...(config.gatewayAccessKey
        ? { accessKey: config.gatewayAccessKey, secretKey: config.gatewaySecretKey }
        : {}),
      producerGroup: config.gatewayProducerGroup,
      replayGroup: config.gatewayReplayGroup,
      sendTimeoutMs: config.gatewaySendTimeoutMs,
      messageBytesMax: config.gatewayMessageBytesMax,
      log: log.child({ part: "client" }),
    }));
  if (config.gatewayHandleSecret === "")
    log.warn(
      "gatewayHandleSecret is not set: receipt handles are signed with a random key of this process, so they stop " +
        "working when it restarts and other gateway instances refuse them. Set the same gatewayHandleSecret on every gateway",
    );
  const handles = new HandleSigner(config.gatewayHandleSecret);
  const deps: GatewayDeps = { cluster, options, apiKeys, metrics: new GatewayMetrics(), log, handles };
  const app = createGateway(deps);
  const fast = fastProduce(deps);
  let server: ReturnType<typeof Bun.serve<WsData>>;
  try {
    server = Bun.serve<WsData>({
      hostname: config.gatewayBindAddress,
      port: config.gatewayPort,
      // A little over the body limit, so the app's limit answers with a problem document first.
      maxRequestBodySize: options.requestBytesMax + 64 * 1024,
      // Long polls hold a request up to pullWaitMsMax: Bun's default 10 s would cut them.
      idleTimeout: Math.min(IDLE_SECONDS_MAX, Math.ceil(options.pullWaitMsMax / 1000) + IDLE_MARGIN_SECONDS),
      fetch: fast
        ? (req, srv) => fast(req) ?? app.fetch(req, { server: srv })
        : (req, srv) => app.fetch(req, { server: srv }),
      websocket: createWsHandler(deps),
    });
  } catch (err) {
    await cluster.close();
    throw new Error(
      `the gateway cannot listen on ${config.gatewayBindAddress}:${config.gatewayPort}: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  const port = server.port ?? config.gatewayPort;
  warnIfOpen(log, config.gatewayBindAddress, port, apiKeys);
  if (config.gatewayAccessKey !== "" && config.gatewaySecretKey === "")
    log.warn("gatewayAccessKey is set without gatewaySecretKey: requests to brokers go unsigned");
  const host =
    config.gatewayBindAddress === "0.0.0.0" || config.gatewayBindAddress === "::"
      ? "127.0.0.1"
      : config.gatewayBindAddress;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  log.info({ url, apiKeys: apiKeys?.size ?? 0 }, `gateway listening on ${url} (docs at ${url}/docs)`);
  return {
    port,
    url,
    deps,
    async stop() {
      // Stops accepting and closes idle and WebSocket connections; held long polls are cut.
      await server.stop(true);
      await cluster.close();
    },
  };
}

/** Loopback only: 127.0.0.0/8, ::1, localhost (and IPv4-mapped loopback). */
export function isLoopbackHost(address: string): boolean {
  let host = address.trim().toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host === "localhost" || host === "::1") return true;
  if (host.startsWith("::ffff:")) host = host.slice(7);
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function warnIfOpen(log: Logger, bind: string, port: number, keys: ApiKeys | null): void {
  if (keys !== null || isLoopbackHost(bind)) return;
  log.warn(
    { bindAddress: bind, port },
    `GATEWAY IS OPEN: it listens on ${bind}:${port}, reachable from other machines, with no API keys: anyone who reaches it can ` +
      "send, read and administer every topic. Set gatewayApiKeysFile, or gatewayBindAddress=127.0.0.1",
  );
}
