/**
 * ACL 1.0 verbs (mqadmin's acl commands): updateAclConfig, deleteAccessConfig (5.x calls it
 * deleteAclConfig; both work), clusterAclConfigVersion, updateGlobalWhiteAddr. With `-c` the
 * updates go to every broker of the cluster, slaves too, as mqadmin does; the version query asks
 * the masters. The brokers take these from admin accounts only: pass `--ak`/`--sk`.
 */
import {
  type Admin,
  aclVersionInfo,
  deleteAclConfig,
  type PlainAccessConfig,
  updateAclConfig,
  updateGlobalWhiteAddrs,
} from "../../client/index.ts";
import { MASTER_ID } from "../../protocol/route/index.ts";
import { type AdminContext, AdminFailure, type AdminVerb, boolOpt, oneOf, opt, required } from "./context.ts";
import { humanTime, table } from "./format.ts";
import { allBrokers } from "./requests.ts";

const BROKER_OR_CLUSTER = [
  { long: "brokerAddr", short: "b", value: "ADDR", help: "one broker" },
  { long: "clusterName", short: "c", value: "CLUSTER", help: "every broker of this cluster" },
] as const;

/** The address `-b` names, or the brokers of the `-c` cluster (masters only, or slaves too). */
async function brokerAddrs(ctx: AdminContext, admin: Admin, withSlaves: boolean): Promise<string[]> {
  const where = oneOf(ctx, "brokerAddr", "clusterName");
  if (where.brokerAddr !== undefined) return [where.brokerAddr];
  const brokers = (await allBrokers(admin)).filter(
    (b) => b.cluster === where.clusterName && (withSlaves || b.brokerId === MASTER_ID),
  );
  if (brokers.length === 0) throw new AdminFailure(`cluster ${where.clusterName} has no broker`);
  return brokers.map((b) => b.addr);
}

/** A comma-separated flag as mqadmin splits it. */
function listOpt(ctx: AdminContext, long: string): string[] | undefined {
  return opt(ctx, long)?.split(",");
}

const updateAclConfigVerb: AdminVerb = {
  name: "updateAclConfig",
  summary: "Create an ACL account, or change one, in plain_acl.yml on a broker or a cluster.",
  usage:
    "(-b ADDR | -c CLUSTER) -a ACCESS_KEY -s SECRET_KEY [-w ADDRS] [-i PERM] [-u PERM] [-t LIST] [-g LIST] [-m BOOL]",
  flags: [
    ...BROKER_OR_CLUSTER,
    { long: "accessKey", short: "a", value: "KEY", help: "the account's access key" },
    { long: "secretKey", short: "s", value: "SECRET", help: "its secret key" },
    { long: "whiteRemoteAddress", short: "w", value: "ADDRS", help: "addresses that need no signature" },
    { long: "defaultTopicPerm", short: "i", value: "PERM", help: "DENY, PUB, SUB or PUB|SUB" },
    { long: "defaultGroupPerm", short: "u", value: "PERM", help: "DENY, PUB, SUB or PUB|SUB" },
    { long: "topicPerms", short: "t", value: "LIST", help: "e.g. topicA=DENY,topicD=SUB" },
    { long: "groupPerms", short: "g", value: "LIST", help: "e.g. groupD=DENY,groupE=SUB" },
    { long: "admin", short: "m", value: "BOOL", help: "an admin account (true|false, default false)" },
  ],
  async run(ctx) {
    const config: PlainAccessConfig = {
      accessKey: required(ctx, "accessKey"),
      secretKey: required(ctx, "secretKey"),
      admin: boolOpt(ctx, "admin") ?? false,
    };
    const whiteRemoteAddress = opt(ctx, "whiteRemoteAddress");
    const defaultTopicPerm = opt(ctx, "defaultTopicPerm");
    const defaultGroupPerm = opt(ctx, "defaultGroupPerm");
    const topicPerms = listOpt(ctx, "topicPerms");
    const groupPerms = listOpt(ctx, "groupPerms");
    if (whiteRemoteAddress !== undefined) config.whiteRemoteAddress = whiteRemoteAddress;
    if (defaultTopicPerm !== undefined) config.defaultTopicPerm = defaultTopicPerm;
    if (defaultGroupPerm !== undefined) config.defaultGroupPerm = defaultGroupPerm;
    if (topicPerms !== undefined) config.topicPerms = topicPerms;
    if (groupPerms !== undefined) config.groupPerms = groupPerms;
    const admin = await ctx.admin();
    const addrs = await brokerAddrs(ctx, admin, true);
    for (const addr of addrs) await updateAclConfig(admin, addr, config);
    // The secret is not echoed: command output ends up in terminals and logs.
    const shown = { ...config, secretKey: "***" };
    ctx.print({ brokerAddrs: addrs, accessConfig: shown }, () =>
      [
        ...addrs.map((a) => `create or update plain access config to ${a} success.`),
        JSON.stringify(shown),
      ].join("\n"),
    );
  },
};

function deleteVerb(name: string, summary: string): AdminVerb {
  return {
    name,
    summary,
    usage: "(-b ADDR | -c CLUSTER) -a ACCESS_KEY",
    flags: [
      ...BROKER_OR_CLUSTER,
      { long: "accessKey", short: "a", value: "KEY", help: "the account to delete" },
    ],
    async run(ctx) {
      const accessKey = required(ctx, "accessKey");
      const admin = await ctx.admin();
      const addrs = await brokerAddrs(ctx, admin, true);
      for (const addr of addrs) await deleteAclConfig(admin, addr, accessKey);
      ctx.print({ brokerAddrs: addrs, accessKey }, () =>
        [
          ...addrs.map((a) => `delete plain access config account from ${a} success.`),
          `account's accessKey is:${accessKey}`,
        ].join("\n"),
      );
    },
  };
}

const clusterAclConfigVersion: AdminVerb = {
  name: "clusterAclConfigVersion",
  summary: "The plain_acl.yml version (counter and last update) of a broker, or of a cluster's masters.",
  usage: "(-b ADDR | -c CLUSTER)",
  flags: BROKER_OR_CLUSTER,
  async run(ctx) {
    const admin = await ctx.admin();
    const addrs = await brokerAddrs(ctx, admin, false);
    const infos = await Promise.all(addrs.map((addr) => aclVersionInfo(admin, addr)));
    const rows = infos.flatMap((info) =>
      Object.entries(info.allAclConfigDataVersion).map(([file, v]) => ({
        clusterName: info.clusterName,
        brokerName: info.brokerName,
        brokerAddr: info.brokerAddr,
        aclFilePath: file,
        aclConfigVersionNum: v.counter,
        aclLastUpdateTime: v.timestamp,
      })),
    );
    ctx.print(rows, () =>
      table(
        [
          "#Cluster Name",
          "#Broker Name",
          "#Broker Addr",
          "#AclFilePath",
          "#AclConfigVersionNum",
          "#AclLastUpdateTime",
        ],
        rows.map((r) => [
          r.clusterName,
          r.brokerName,
          r.brokerAddr,
          r.aclFilePath,
          r.aclConfigVersionNum,
          humanTime(r.aclLastUpdateTime),
        ]),
      ),
    );
  },
};

const updateGlobalWhiteAddr: AdminVerb = {
  name: "updateGlobalWhiteAddr",
  summary: "Replace globalWhiteRemoteAddresses in plain_acl.yml on a broker or a cluster.",
  usage: "(-b ADDR | -c CLUSTER) -g ADDRS [-p FILE]",
  flags: [
    ...BROKER_OR_CLUSTER,
    {
      long: "globalWhiteRemoteAddresses",
      short: "g",
      value: "ADDRS",
      help: "patterns separated by commas, e.g. 10.10.103.*,192.168.0.*",
    },
    {
      long: "aclFileFullPath",
      short: "p",
      value: "FILE",
      help: "the broker's ACL file (default: the one in use)",
    },
  ],
  async run(ctx) {
    const addresses = required(ctx, "globalWhiteRemoteAddresses").split(",");
    const file = opt(ctx, "aclFileFullPath");
    const admin = await ctx.admin();
    const addrs = await brokerAddrs(ctx, admin, true);
    for (const addr of addrs) await updateGlobalWhiteAddrs(admin, addr, addresses, file);
    ctx.print({ brokerAddrs: addrs, globalWhiteRemoteAddresses: addresses }, () =>
      addrs.map((a) => `update global white remote addresses to ${a} success.`).join("\n"),
    );
  },
};

export const aclVerbs: readonly AdminVerb[] = [
  updateAclConfigVerb,
  deleteVerb("deleteAccessConfig", "Delete an ACL account from plain_acl.yml on a broker or a cluster."),
  deleteVerb("deleteAclConfig", "The same as deleteAccessConfig (RocketMQ 5.x's name)."),
  clusterAclConfigVersion,
  updateGlobalWhiteAddr,
];
