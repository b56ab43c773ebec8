/**
 * The composition seam between the CLI and the roles: what a running role looks like, how one is
 * started from its typed configuration, and the one table where NameServer, Broker and Gateway plug in.
 */

import { createBroker } from "../../broker/index.ts";
import { startGateway } from "../../gateway/server.ts";
import type { RocketbunConfig } from "../config/rocketbun-config.ts";
import type { BrokerRoleConfig, GatewayRoleConfig, NamesrvRoleConfig } from "../config/role-config.ts";
import { logger } from "../log.ts";
import { createNameServer } from "../namesrv/index.ts";
import { inProcessConnector, LocalServers, tcpConnector } from "../remoting/connector.ts";
import { ServerResources } from "../remoting/server-resources.ts";

/** A started role. `stop` releases everything the role holds (sockets, files, timers). */
export interface Role {
  readonly name: string;
  stop(): Promise<void>;
}

/** Starts a role; resolves once it serves (its ports are bound), rejects if it cannot start. */
export type RoleStarter<C> = (config: C) => Promise<Role>;

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
 * reach each other without a socket.
 */
export const localServers = new LocalServers();

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

async function startNameServer(config: NamesrvRoleConfig): Promise<Role> {
  const ns = createNameServer(
    { namesrv: config.namesrv, server: config.nettyServer, runtimeChanges: config.runtimeChanges },
    { resources: serverResources(config.rocketbun) },
  );
  // The boot line goes to stdout as RocketMQ's does: scripts and health checks grep for it.
  console.log(await ns.start());
  const addresses = [`127.0.0.1:${ns.port}`, `localhost:${ns.port}`];
  for (const addr of addresses) localServers.register(addr, ns.server);
  return {
    name: "namesrv",
    async stop() {
      for (const addr of addresses) localServers.unregister(addr);
      await ns.stop();
    },
  };
}

/** Human names for messages. */
export const ROLE_TITLES = { namesrv: "NameServer", broker: "Broker", gateway: "Gateway" } as const;

async function startBroker(config: BrokerRoleConfig): Promise<Role> {
  const log = logger("broker");
  // NameServers in this process are reached without a socket; any other address over TCP.
  const connector = inProcessConnector(localServers, tcpConnector({ log }));
  const broker = createBroker(config, { log, connector, resources: serverResources(config.rocketbun) });
  console.log(await broker.start());
  // The gateway of this process reaches the broker without a socket, as the broker the NameServer.
  const addr = broker.brokerAddr;
  localServers.register(addr, broker.server);
  return {
    name: "broker",
    async stop() {
      localServers.unregister(addr);
      await broker.stop();
    },
  };
}

async function startGatewayRole(config: GatewayRoleConfig): Promise<Role> {
  const log = logger("gateway");
  // NameServers and brokers of this process in process (`start`); any other address over TCP.
  const connector = inProcessConnector(localServers, tcpConnector({ log }));
  const gateway = await startGateway(config.gateway, { log, connector });
  // Like the other roles' boot lines, on stdout for scripts and health checks.
  console.log(`The gateway boot success, listening on ${gateway.url} (docs at ${gateway.url}/docs)`);
  return { name: "gateway", stop: () => gateway.stop() };
}
