/**
 * ACL 1.0 administration (Java's AdminBrokerProcessor): UPDATE_AND_CREATE_ACL_CONFIG (50),
 * DELETE_ACL_CONFIG (51), GET_BROKER_CLUSTER_ACL_INFO (52), UPDATE_GLOBAL_WHITE_ADDRS_CONFIG (53).
 * Each update rewrites plain_acl.yml and is in force when the answer is sent. Who may send them
 * is the ACL's own business (admin accounts only, see src/acl/permission.ts).
 */
import { AclResponseCode } from "../../src/acl/constants.ts";
import { AclConfigError } from "../../src/acl/errors.ts";
import type { PlainAcl } from "../../src/acl/plain-acl.ts";
import {
  CreateAccessConfigRequestHeader,
  DeleteAccessConfigRequestHeader,
  GetBrokerAclConfigResponseHeader,
  splitList,
  UpdateGlobalWhiteAddrsConfigRequestHeader,
} from "../../src/protocol/headers/acl.ts";
import type { DataVersion } from "../../src/protocol/route/data-version.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";

const ACL_OFF = "The broker does not enable acl";

/** Java's DataVersion as fastjson writes it (key order included). */
function versionObject(v: DataVersion) {
  return { counter: Number(v.counter), stateVersion: Number(v.stateVersion), timestamp: Number(v.timestamp) };
}

/** Runs an update; any failure is answered with `failCode` and the reason (Java catches Exception). */
async function applying(
  acl: PlainAcl | null,
  failCode: number,
  failRemark: string,
  update: (acl: PlainAcl) => Promise<boolean>,
): Promise<RemotingCommand> {
  if (acl === null) return RemotingCommand.response(failCode, ACL_OFF);
  try {
    if (await update(acl)) return RemotingCommand.response(ResponseCode.SUCCESS);
    return RemotingCommand.response(failCode, failRemark);
  } catch (err) {
    if (err instanceof AclConfigError) return RemotingCommand.response(failCode, err.message);
    throw err;
  }
}

export function aclAdminProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  const acl = ctx.acl;
  return [
    [
      RequestCode.UPDATE_AND_CREATE_ACL_CONFIG,
      (request) => {
        const h = CreateAccessConfigRequestHeader.decode(request.extFields);
        return applying(
          acl,
          AclResponseCode.UPDATE_AND_CREATE_ACL_CONFIG_FAILED,
          `The accessKey[${h.accessKey}] corresponding to accessConfig has been updated failed.`,
          async (a) => {
            await a.updateAccount({
              accessKey: h.accessKey,
              secretKey: h.secretKey ?? null,
              whiteRemoteAddress: h.whiteRemoteAddress ?? null,
              admin: h.admin ?? null,
              defaultTopicPerm: h.defaultTopicPerm ?? null,
              defaultGroupPerm: h.defaultGroupPerm ?? null,
              topicPerms: splitList(h.topicPerms),
              groupPerms: splitList(h.groupPerms),
            });
            ctx.log.info({ accessKey: h.accessKey }, "ACL account created or updated");
            return true;
          },
        );
      },
    ],
    [
      RequestCode.DELETE_ACL_CONFIG,
      (request) => {
        const { accessKey } = DeleteAccessConfigRequestHeader.decode(request.extFields);
        return applying(
          acl,
          AclResponseCode.DELETE_ACL_CONFIG_FAILED,
          `The accessKey[${accessKey}] corresponding to accessConfig has been deleted failed.`,
          async (a) => {
            const deleted = await a.deleteAccount(accessKey);
            if (deleted) ctx.log.info({ accessKey }, "ACL account deleted");
            return deleted;
          },
        );
      },
    ],
    [
      RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG,
      (request) => {
        const h = UpdateGlobalWhiteAddrsConfigRequestHeader.decode(request.extFields);
        return applying(
          acl,
          AclResponseCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED,
          `The globalWhiteAddresses[${h.globalWhiteAddrs}] has been updated failed.`,
          async (a) => {
            const addresses = splitList(h.globalWhiteAddrs) ?? [];
            await a.updateGlobalWhiteAddrs(addresses, h.aclFileFullPath ?? null);
            ctx.log.info({ globalWhiteRemoteAddresses: addresses }, "ACL global white list updated");
            return true;
          },
        );
      },
    ],
    [
      RequestCode.GET_BROKER_CLUSTER_ACL_INFO,
      () => {
        if (acl === null) return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, ACL_OFF);
        const { version, byFile } = acl.versionInfo();
        const all = Object.fromEntries(Object.entries(byFile).map(([f, v]) => [f, versionObject(v)]));
        const ext = GetBrokerAclConfigResponseHeader.encode({
          version: JSON.stringify(versionObject(version)),
          allAclFileVersion: JSON.stringify(all),
          brokerName: ctx.brokerConfig.brokerName,
          brokerAddr: ctx.brokerAddr,
          clusterName: ctx.brokerConfig.brokerClusterName,
        });
        return RemotingCommand.response(ResponseCode.SUCCESS, null, ext);
      },
    ],
  ];
}
