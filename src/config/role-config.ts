/**
 * What each role's configuration is made of: the typed sections it receives, and the sections whose
 * keys its file may contain, in the order `-p` prints them (RocketMQ's order first, ours after).
 */
import { type AuthConfig, authConfig, type NamesrvAclConfig, namesrvAclConfig } from "./acl-config.ts";
import { type BrokerConfig, brokerConfig } from "./broker-config.ts";
import { type GatewayConfig, gatewayConfig } from "./gateway-config.ts";
import { type MessageStoreConfig, messageStoreConfig } from "./message-store-config.ts";
import { type NamesrvConfig, namesrvConfig } from "./namesrv-config.ts";
import {
  type NettyClientConfig,
  type NettyServerConfig,
  nettyClientConfig,
  nettyServerConfig,
} from "./netty-config.ts";
import {
  type RocketbunBrokerConfig,
  type RocketbunConfig,
  rocketbunBrokerConfig,
  rocketbunConfig,
  type StartConfig,
  startConfig,
} from "./rocketbun-config.ts";
import type { Section } from "./schema.ts";
import { type TlsConfig, tlsConfig } from "./tls-config.ts";

export interface NamesrvRoleConfig {
  readonly rocketbun: RocketbunConfig;
  readonly namesrv: NamesrvConfig;
  readonly nettyServer: NettyServerConfig;
  readonly nettyClient: NettyClientConfig;
  /** Whether, and how, the NameServer checks ACL (RocketBun's keys; Java's NameServer has none). */
  readonly acl: NamesrvAclConfig;
  readonly tls: TlsConfig;
  /** The keys UPDATE_NAMESRV_CONFIG changed before (configStorePath), already applied above. */
  readonly runtimeChanges: ReadonlyMap<string, string>;
}

export interface BrokerRoleConfig {
  readonly rocketbun: RocketbunConfig;
  readonly broker: BrokerConfig;
  readonly messageStore: MessageStoreConfig;
  readonly limits: RocketbunBrokerConfig;
  /** The account the broker signs its NameServer requests with (Java's AuthConfig). */
  readonly auth: AuthConfig;
  readonly nettyServer: NettyServerConfig;
  readonly nettyClient: NettyClientConfig;
  readonly tls: TlsConfig;
  /** The keys UPDATE_BROKER_CONFIG changed before (brokerConfigPath), already applied above. */
  readonly runtimeChanges: ReadonlyMap<string, string>;
}

export interface GatewayRoleConfig {
  readonly rocketbun: RocketbunConfig;
  readonly gateway: GatewayConfig;
  readonly nettyClient: NettyClientConfig;
  readonly tls: TlsConfig;
}

/**
 * `rocketbun start`: one file configures all three roles. Netty keys serve both servers; listenPort
 * is the broker's and startConfig.namesrvListenPort the NameServer's.
 */
export interface StartRoleConfig {
  readonly rocketbun: RocketbunConfig;
  readonly start: StartConfig;
  readonly namesrv: NamesrvRoleConfig;
  readonly broker: BrokerRoleConfig;
  readonly gateway: GatewayRoleConfig;
}

export interface RoleConfigs {
  readonly namesrv: NamesrvRoleConfig;
  readonly broker: BrokerRoleConfig;
  readonly gateway: GatewayRoleConfig;
  readonly start: StartRoleConfig;
}

export type RoleName = keyof RoleConfigs;

export const ROLE_NAMES: readonly RoleName[] = ["namesrv", "broker", "gateway", "start"];

const brokerSections = [brokerConfig, nettyServerConfig, nettyClientConfig, messageStoreConfig] as const;

/** The sections a role's file may name keys of, in `-p` order. */
export const ROLE_SECTIONS: { readonly [R in RoleName]: readonly Section[] } = {
  namesrv: [
    namesrvConfig,
    nettyServerConfig,
    nettyClientConfig,
    rocketbunConfig,
    namesrvAclConfig,
    tlsConfig,
  ],
  broker: [...brokerSections, authConfig, rocketbunConfig, rocketbunBrokerConfig, tlsConfig],
  gateway: [gatewayConfig, nettyClientConfig, rocketbunConfig, tlsConfig],
  start: [
    ...brokerSections,
    authConfig,
    namesrvConfig,
    gatewayConfig,
    startConfig,
    rocketbunConfig,
    rocketbunBrokerConfig,
    namesrvAclConfig,
    tlsConfig,
  ],
};
