/**
 * createNameServer: a RocketMQ-compatible NameServer as a library (spec remoting §7). It wires the
 * route table, KV store, live config and processor table onto a RemotingServer (ACL-checked when
 * configured) and onto a socketless one for roles of the same process, expires brokers that stop
 * registering or whose connection closes, and reports Java's boot line.
 */
import { resolve } from "node:path";
import type { Logger } from "pino";
import { warnIfExposed } from "../acl/exposure.ts";
import { PlainAcl } from "../acl/plain-acl.ts";
import type { StateWriter } from "../config/state-file.ts";
import { logger as componentLogger } from "../log.ts";
import { RemotingServer, type ServerResources, type ServerTlsOptions } from "../remoting/index.ts";
import { namesrvAclCheck } from "./acl.ts";
import { LiveConfig, type NameServerConfig } from "./config.ts";
import type { NamesrvContext } from "./context.ts";
import { KvConfigStore } from "./kv-config.ts";
import { CLIENT_LANE, namesrvProcessorTable } from "./processors.ts";
import { RouteTable } from "./route-table.ts";

export type {
  NameServerConfig,
  NamesrvAclOptions,
  NamesrvConfigLike,
  NamesrvServerConfigLike,
} from "./config.ts";
export { LiveConfig } from "./config.ts";
export { KvConfigStore, NAMESPACE_ORDER_TOPIC_CONFIG } from "./kv-config.ts";
export { DEFAULT_BROKER_CHANNEL_EXPIRED_TIME_MS } from "./route-state.ts";
export { RouteTable } from "./route-table.ts";

/** How often all KV entries are logged (Java: every 10 minutes). */
const KV_LOG_INTERVAL_MS = 10 * 60 * 1000;

export interface NameServerDeps {
  log?: Logger;
  /** The clock route liveness uses; tests pass a fake one. */
  now?: () => number;
  /** How kvConfigPath and configStorePath are written; tests make writes fail. */
  files?: { readonly write?: StateWriter; readonly retryMs?: number };
  /** Connection cap and buffer budget shared with the process's other servers (`start`). */
  resources?: ServerResources;
  /**
   * An ACL its owner opened and will stop (`start` shares the broker's). Used when `config.acl` is
   * set, instead of a PlainAcl of the NameServer's own.
   */
  acl?: PlainAcl;
  /** TLS on the NameServer's port (tls.server.*); absent: plaintext only. */
  tls?: ServerTlsOptions;
}

export interface NameServer {
  readonly server: RemotingServer;
  /**
   * The same processors with no ACL check and no socket, reached only through acceptInProcess: for
   * roles this process runs beside the NameServer (`start`'s broker), which it trusts as itself.
   */
  readonly trustedServer: RemotingServer;
  readonly routes: RouteTable;
  readonly kv: KvConfigStore;
  readonly config: LiveConfig;
  /** The bound port (after start). */
  readonly port: number;
  /** Loads the KV store, listens, starts the expiry scan; resolves to Java's boot line. */
  start(): Promise<string>;
  stop(): Promise<void>;
}

/** Java's startup line, which scripts and health checks grep for (spec §7.2). */
export function bootLine(bindAddress: string, port: number): string {
  return `The Name Server boot success. serializeType=JSON, address ${bindAddress}:${port}`;
}

export function createNameServer(config: NameServerConfig, deps: NameServerDeps = {}): NameServer {
  const log = deps.log ?? componentLogger("namesrv");
  const live = new LiveConfig(config, { log: log.child({ part: "config" }), ...deps.files });
  const n = live.namesrv;
  const routes = new RouteTable({
    log: log.child({ part: "routes" }),
    supportActingMaster: () => live.namesrv.supportActingMaster,
    deleteTopicWithBrokerRegistration: () => live.namesrv.deleteTopicWithBrokerRegistration,
    now: deps.now,
  });
  const kv = new KvConfigStore(n.kvConfigPath, log.child({ part: "kv" }), deps.files);
  const serverOptions = {
    listenPort: config.server.listenPort,
    bindAddress: config.server.bindAddress,
    idleSeconds: config.server.serverChannelMaxIdleTimeSeconds,
    asyncPermits: config.server.serverAsyncSemaphoreValue,
    onewayPermits: config.server.serverOnewaySemaphoreValue,
  };
  const server = new RemotingServer({
    ...serverOptions,
    name: "namesrv",
    resources: deps.resources,
    tls: deps.tls,
    log: log.child({ part: "remoting" }),
  });
  // It holds no socket: it shares the public server's limits rather than making its own.
  const trustedServer = new RemotingServer({
    ...serverOptions,
    name: "namesrv-in-process",
    resources: server.resources,
    log: log.child({ part: "in-process" }),
  });
  const aclOptions = config.acl?.enable ? config.acl : null;
  const ownAcl =
    aclOptions && !deps.acl
      ? new PlainAcl({
          file: resolve(aclOptions.file),
          watchIntervalMs: aclOptions.watchIntervalMs,
          log: log.child({ part: "acl" }),
        })
      : null;
  const acl = aclOptions ? (deps.acl ?? ownAcl) : null;
  const timers: ReturnType<typeof setInterval>[] = [];
  let startedAt = Date.now();
  const ctx: NamesrvContext = {
    routes,
    kv,
    config: live,
    log,
    get startedAt() {
      return startedAt;
    },
  };
  const table = namesrvProcessorTable(ctx);
  for (const s of [server, trustedServer]) {
    // Java's two executors become two lanes with the same bounded queues (spec §7.1).
    s.registry
      .defineLane("default", {
        concurrency: Math.max(1, n.defaultThreadPoolNums),
        queueMax: n.defaultThreadPoolQueueCapacity,
      })
      .defineLane(CLIENT_LANE, {
        concurrency: Math.max(1, n.clientRequestThreadPoolNums),
        queueMax: n.clientRequestThreadPoolQueueCapacity,
      })
      .registerAll(table);
    // A broker's connection closing removes it from routes at once (BrokerHousekeepingService).
    s.endpoint.onConnectionClosed((conn) => {
      const removed = routes.onConnectionClosed(conn);
      if (removed > 0) log.info({ addr: conn.remoteAddress, removed }, "broker channel closed, unregistered");
    });
  }
  if (acl && aclOptions) {
    server.registry.guard = acl.guardWith(
      "namesrv",
      namesrvAclCheck({ readNeedSignature: aclOptions.readNeedSignature }),
    );
  }

  return {
    server,
    trustedServer,
    routes,
    kv,
    config: live,
    get port() {
      return server.port;
    },
    async start() {
      if (n.clusterTest) log.warn("clusterTest is not supported; serving as a normal NameServer");
      await kv.load();
      const changed = live.changed();
      if (changed.length > 0) {
        log.info(
          { path: live.changesPath, keys: changed.map(([k]) => k) },
          "run-time config changes applied",
        );
      }
      // Before the port opens, so no request is ever served without the file's accounts.
      if (ownAcl) {
        await ownAcl.open();
        ownAcl.startWatching();
      }
      try {
        await server.start();
      } catch (err) {
        ownAcl?.stop();
        throw err;
      }
      startedAt = Date.now();
      warnIfExposed(log, {
        role: "NameServer",
        bindAddress: config.server.bindAddress,
        ports: [{ name: "port", port: server.port }],
        aclEnabled: acl !== null,
        risk: "register, unregister or impersonate brokers, wipe their write permission, delete topics and change KV and config",
        aclFile: config.acl?.file ?? "plain_acl.yml (aclPlainFile)",
      });
      timers.push(
        setInterval(() => routes.expireInactiveBrokers(), live.namesrv.scanNotActiveBrokerInterval),
      );
      timers.push(setInterval(() => log.info({ kv: kv.snapshot() }, "KV config table"), KV_LOG_INTERVAL_MS));
      for (const t of timers) t.unref?.();
      const line = bootLine(config.server.bindAddress, server.port);
      // The CLI prints the boot line once on stdout (RocketMQ's readiness line); the log keeps it at debug.
      log.debug(line);
      return line;
    },
    async stop() {
      for (const t of timers.splice(0)) clearInterval(t);
      await trustedServer.stop();
      await server.stop();
      ownAcl?.stop();
      // Last writes of anything a failed write left behind; failures are logged by the files.
      await Promise.all([kv.close(), live.close()]);
    },
  };
}
