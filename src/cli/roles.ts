/**
 * The composition seam between the CLI and the roles: what a running role looks like, how one is
 * started from its typed configuration, and the one table where NameServer, Broker and Gateway plug in.
 */

import { createBroker } from "../../broker/index.ts";
import type { RocketbunConfig } from "../config/rocketbun-config.ts";
import type { BrokerRoleConfig, GatewayRoleConfig, NamesrvRoleConfig } from "../config/role-config.ts";
import { logger } from "../log.ts";
import { createNameServer } from "../namesrv/index.ts";
import { inProcessConnector, LocalServers, tcpConnector } from "../remoting/connector.ts";
import { ServerResources } from "../remoting/server-resources.ts";
import { clientTlsFrom, serverTlsFrom } from "../tls/material.ts";

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
  const tls = await serverTlsFrom(config.tls, config.rocketbun.rocketbunHome, logger("tls"));
  const ns = createNameServer(
    { namesrv: config.namesrv, server: config.nettyServer, runtimeChanges: config.runtimeChanges },
    { resources: serverResources(config.rocketbun), tls },
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
  const home = config.rocketbun.rocketbunHome;
  const serverTls = await serverTlsFrom(config.tls, home, logger("tls"));
  const clientTls = await clientTlsFrom(config.tls, config.nettyClient.useTLS, home, logger("tls"));
  // NameServers in this process are reached without a socket; any other address over TCP (TLS
  // with tls.enable or useTLS).
  const connector = inProcessConnector(localServers, tcpConnector({ log, tls: clientTls }));
  const resources = serverResources(config.rocketbun);
  const broker = createBroker(config, { log, connector, resources, tls: serverTls });
  console.log(await broker.start());
  return { name: "broker", stop: () => broker.stop() };
}
