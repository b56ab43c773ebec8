/**
 * ACL 1.0 administration from the client (Java's MQClientAPIImpl.createPlainAccessConfig,
 * deleteAccessConfig, updateGlobalWhiteAddrsConfig, getBrokerClusterAclInfo), one broker at a
 * time. The admin must itself be signed by an admin account when the broker checks ACL.
 */
import {
  CreateAccessConfigRequestHeader,
  DeleteAccessConfigRequestHeader,
  GetBrokerAclConfigResponseHeader,
  UpdateGlobalWhiteAddrsConfigRequestHeader,
} from "../protocol/headers/acl.ts";
import { RequestCode } from "../remoting/index.ts";
import type { Admin } from "./admin.ts";
import { decodeAnswer } from "./errors.ts";
import { call } from "./rpc.ts";

/** One account as mqadmin's updateAclConfig gives it (Java's PlainAccessConfig). */
export interface PlainAccessConfig {
  accessKey: string;
  secretKey?: string;
  whiteRemoteAddress?: string;
  admin?: boolean;
  defaultTopicPerm?: string;
  defaultGroupPerm?: string;
  /** `topicA=PUB|SUB` lines. */
  topicPerms?: string[];
  /** `groupA=SUB` lines. */
  groupPerms?: string[];
}

export interface AclVersion {
  counter: number;
  timestamp: number;
}

/** GET_BROKER_CLUSTER_ACL_INFO's answer (Java's ClusterAclVersionInfo). */
export interface ClusterAclVersionInfo {
  clusterName: string;
  brokerName: string;
  brokerAddr: string;
  aclConfigDataVersion: AclVersion;
  /** File path → its version. */
  allAclConfigDataVersion: Record<string, AclVersion>;
}

function invoke(admin: Admin, addr: string, code: number, ext: Record<string, string> | null) {
  return call(admin.client.remoting, addr, code, ext, null, admin.client.options.mqClientApiTimeoutMs);
}

/** Creates the account, or merges these fields into it (an absent field keeps its value). */
export async function updateAclConfig(
  admin: Admin,
  brokerAddr: string,
  config: PlainAccessConfig,
): Promise<void> {
  const ext = CreateAccessConfigRequestHeader.encode({
    accessKey: config.accessKey,
    secretKey: config.secretKey,
    whiteRemoteAddress: config.whiteRemoteAddress,
    // Java always sends it (a primitive boolean): absent means false there too.
    admin: config.admin ?? false,
    defaultTopicPerm: config.defaultTopicPerm,
    defaultGroupPerm: config.defaultGroupPerm,
    topicPerms: config.topicPerms?.join(","),
    groupPerms: config.groupPerms?.join(","),
  });
  await invoke(admin, brokerAddr, RequestCode.UPDATE_AND_CREATE_ACL_CONFIG, ext);
}

/** Deletes the account; fails (DELETE_ACL_CONFIG_FAILED) when there is none. */
export async function deleteAclConfig(admin: Admin, brokerAddr: string, accessKey: string): Promise<void> {
  const ext = DeleteAccessConfigRequestHeader.encode({ accessKey });
  await invoke(admin, brokerAddr, RequestCode.DELETE_ACL_CONFIG, ext);
}

/** Replaces globalWhiteRemoteAddresses (each entry one pattern; a pattern cannot contain a comma here). */
export async function updateGlobalWhiteAddrs(
  admin: Admin,
  brokerAddr: string,
  addresses: readonly string[],
  aclFileFullPath?: string,
): Promise<void> {
  const ext = UpdateGlobalWhiteAddrsConfigRequestHeader.encode({
    globalWhiteAddrs: addresses.join(","),
    aclFileFullPath,
  });
  await invoke(admin, brokerAddr, RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG, ext);
}

function version(raw: unknown): AclVersion {
  const v = (raw ?? {}) as Record<string, unknown>;
  return { counter: Number(v.counter ?? 0), timestamp: Number(v.timestamp ?? 0) };
}

export async function aclVersionInfo(admin: Admin, brokerAddr: string): Promise<ClusterAclVersionInfo> {
  const r = await invoke(admin, brokerAddr, RequestCode.GET_BROKER_CLUSTER_ACL_INFO, null);
  return decodeAnswer(brokerAddr, RequestCode.GET_BROKER_CLUSTER_ACL_INFO, () => {
    const h = GetBrokerAclConfigResponseHeader.decode(r.extFields);
    const all = JSON.parse(h.allAclFileVersion ?? "{}") as Record<string, unknown>;
    return {
      clusterName: h.clusterName,
      brokerName: h.brokerName,
      brokerAddr: h.brokerAddr,
      aclConfigDataVersion: version(JSON.parse(h.version)),
      allAclConfigDataVersion: Object.fromEntries(Object.entries(all).map(([f, v]) => [f, version(v)])),
    };
  });
}
