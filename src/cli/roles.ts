/**
 * The composition seam between the CLI and the roles: what a running role looks like, how one is
 * started from its typed configuration, and the one table where NameServer, Broker and Gateway plug in.
 */

import { resolve } from "node:path";
import { createBroker } from "../../broker/index.ts";
import { startGateway } from "../../gateway/server.ts";
import { PlainAcl } from "../acl/plain-acl.ts";
import { isWildcard } from "../config/load.ts";
import type { RocketbunConfig } from "../config/rocketbun-config.ts";
import type {
  BrokerRoleConfig,
  GatewayRoleConfig,
  NamesrvRoleConfig,
  StartRoleConfig,
} from "../config/role-config.ts";
import { logger } from "../log.ts";
import { createNameServer, type NamesrvAclOptions } from "../namesrv/index.ts";
import { inProcessConnector, LocalServers, tcpConnector } from "../remoting/connector.ts";
import { ServerResources } from "../remoting/server-resources.ts";
import { clientTlsFrom, serverTlsFrom } from "../tls/material.ts";

/** A started role. `stop` releases everything the role holds (sockets, files, timers). */
export interface Role {
  readonly name: string;
  stop(): Promise<void>;
}

/** What `start` gives the roles it runs together. */
export interface Shared {
  /** One ACL for the NameServer and the broker (null with aclEnable off); opened before either. */
  readonly acl: PlainAcl | null;
}

/** Starts a role; resolves once it serves (its ports are bound), rejects if it cannot start. */
export type RoleStarter<C> = (config: C, shared?: Shared) => Promise<Role>;

export interface RoleStarters {
  readonly namesrv?: RoleStarter<NamesrvRoleConfig>;
  readonly broker?: RoleStarter<BrokerRoleConfig>;
  readonly gateway?: RoleStarter<GatewayRoleConfig>;
}

/**
 * The roles this build can run. Each subcommand and `start` look here; a missing entry makes the
 * subcommand say that the role is not available in this build. Plug the roles in like this:
 *
 *   namesrv: (config) => startNameServer(config),   // src/namesrv: route table, liveness, KV, processors
 *   broker: (config) => startBroker(config),        // broker/index.ts createBroker(config, deps)
 *   gateway: (config) => startGateway(config),      // gateway/app.ts createGateway({ client, config })
 */
export const roleStarters: RoleStarters = Object.freeze({
  namesrv: startNameServer,
  broker: startBroker,
  gateway: startGatewayRole,
});

/**
 * Servers of this process by the addresses they answer on, so roles started together (`start`)
 * reach each other without a socket. The NameServer is registered by its trusted, unchecked door:
 * `start` owns both roles, so its broker needs no account to register (a broker signs only for
 * NameServers of other processes). Only roles of this process may be given a connector over it.
 */
export const localServers = new LocalServers();

/** The same servers by their public doors (the NameServer's ACL-checked one), for the gateway. */
const publicServers = new LocalServers();

/**
 * One connection cap and buffer budget for all servers of this process, since descriptors and
 * memory are the process's: under `start` the NameServer and the Broker share them.
 */
let processResources: ServerResources | undefined;

function serverResources(config: RocketbunConfig): ServerResources {
  processResources ??= new ServerResources({
    connectionsMax: config.serverConnectionsMax,
    bufferBytesMax: config.serverBufferBytesMax,
    log: logger("limits"),
  });
  return processResources;
}

/** The NameServer's ACL settings, its file resolved under the home. */
export function namesrvAclOptions(config: NamesrvRoleConfig): NamesrvAclOptions {
  return {
    enable: config.acl.aclEnable,
    file: resolve(config.rocketbun.rocketbunHome, config.acl.aclPlainFile),
    watchIntervalMs: config.acl.aclWatchIntervalMs,
    readNeedSignature: config.acl.aclReadNeedSignature,
  };
}

/**
 * The ACL `start` shares between its NameServer and broker, so that one `aclEnable=true` protects
 * both, one file is watched, and an account added through the broker counts at once at both.
 */
export function sharedAcl(config: StartRoleConfig): PlainAcl | null {
  const options = namesrvAclOptions(config.namesrv);
  if (!options.enable) return null;
  return new PlainAcl({ file: options.file, watchIntervalMs: options.watchIntervalMs, log: logger("acl") });
}

/** The shared ACL as the first "role" of `start`: loaded before any port opens, stopped last. */
export async function openSharedAcl(acl: PlainAcl): Promise<Role> {
  await acl.open();
  acl.startWatching();
  return { name: "acl", stop: async () => acl.stop() };
}

async function startNameServer(config: NamesrvRoleConfig, shared?: Shared): Promise<Role> {
  const tls = await serverTlsFrom(config.tls, config.rocketbun.rocketbunHome, logger("tls"));
  const ns = createNameServer(
    {
      namesrv: config.namesrv,
      server: config.nettyServer,
      acl: namesrvAclOptions(config),
      runtimeChanges: config.runtimeChanges,
    },
    { resources: serverResources(config.rocketbun), tls, ...(shared?.acl ? { acl: shared.acl } : {}) },
  );
  // The boot line goes to stdout as RocketMQ's does: scripts and health checks grep for it.
  console.log(await ns.start());
  const addresses = [`127.0.0.1:${ns.port}`, `localhost:${ns.port}`];
  for (const addr of addresses) {
    localServers.register(addr, ns.trustedServer);
    publicServers.register(addr, ns.server);
  }
  return {
    name: "namesrv",
    async stop() {
      for (const addr of addresses) {
        localServers.unregister(addr);
        publicServers.unregister(addr);
      }
      await ns.stop();
    },
  };
}

/** Human names for messages. */
export const ROLE_TITLES = { namesrv: "NameServer", broker: "Broker", gateway: "Gateway" } as const;

/**
 * A broker bound to one address that publishes another (brokerIP1) hands clients a route they
 * cannot connect to: say so at start rather than leave them timing out.
 */
function warnIfUnreachable(log: ReturnType<typeof logger>, config: BrokerRoleConfig): void {
  const bind = config.nettyServer.bindAddress;
  const published = config.broker.brokerIP1;
  if (isWildcard(bind) || bind === published) return;
  log.warn(
    { bindAddress: bind, brokerIP1: published },
    `the broker listens only on ${bind} but publishes brokerIP1=${published} to clients, which will fail to connect; set brokerIP1=${bind} or bindAddress=0.0.0.0`,
  );
}

async function startBroker(config: BrokerRoleConfig, shared?: Shared): Promise<Role> {
  const log = logger("broker");
  const home = config.rocketbun.rocketbunHome;
  const serverTls = await serverTlsFrom(config.tls, home, logger("tls"));
  const clientTls = await clientTlsFrom(config.tls, config.nettyClient.useTLS, home, logger("tls"));
  // NameServers in this process are reached without a socket; any other address over TCP (TLS
  // with tls.enable or useTLS).
  const connector = inProcessConnector(localServers, tcpConnector({ log, tls: clientTls }));
  const broker = createBroker(config, {
    log,
    connector,
    resources: serverResources(config.rocketbun),
    tls: serverTls,
    ...(shared?.acl ? { acl: shared.acl } : {}),
  });
  warnIfUnreachable(log, config);
  console.log(await broker.start());
  // The gateway of this process reaches the broker without a socket, as the broker the NameServer.
  const addr = broker.brokerAddr;
  localServers.register(addr, broker.server);
  publicServers.register(addr, broker.server);
  return {
    name: "broker",
    async stop() {
      localServers.unregister(addr);
      publicServers.unregister(addr);
      await broker.stop();
    },
  };
}

async function startGatewayRole(config: GatewayRoleConfig): Promise<Role> {
  const log = logger("gateway");
  // NameServers and brokers of this process in process (`start`), through the doors every client
  // uses (ACL checked): HTTP users must not reach the NameServer's trusted one. Any other address
  // over TCP, with TLS when tls.enable or useTLS say so.
  const tls = await clientTlsFrom(
    config.tls,
    config.nettyClient.useTLS,
    config.rocketbun.rocketbunHome,
    logger("tls"),
  );
  const connector = inProcessConnector(publicServers, tcpConnector({ log, tls }));
  const gateway = await startGateway(config.gateway, { log, connector });
  // Like the other roles' boot lines, on stdout for scripts and health checks.
  console.log(`The gateway boot success, listening on ${gateway.url} (docs at ${gateway.url}/docs)`);
  return { name: "gateway", stop: () => gateway.stop() };
}
