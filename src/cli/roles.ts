/**
 * The composition seam between the CLI and the roles: what a running role looks like, how one is
 * started from its typed configuration, and the one table where NameServer, Broker and Gateway plug in.
 */
import type { BrokerRoleConfig, GatewayRoleConfig, NamesrvRoleConfig } from "../config/role-config.ts";

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
export const roleStarters: RoleStarters = Object.freeze({});

/** Human names for messages. */
export const ROLE_TITLES = { namesrv: "NameServer", broker: "Broker", gateway: "Gateway" } as const;
