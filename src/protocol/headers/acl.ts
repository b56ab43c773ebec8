/**
 * ACL 1.0 admin headers (Java's CreateAccessConfigRequestHeader, DeleteAccessConfigRequestHeader,
 * UpdateGlobalWhiteAddrsConfigRequestHeader, GetBrokerAclConfigResponseHeader). Lists travel as
 * one comma-separated string (`topicA=DENY,topicB=SUB`); the broker splits them as UtilAll.split.
 */
import { defineHeader, field } from "../../remoting/custom-header.ts";

/** UPDATE_AND_CREATE_ACL_CONFIG (50). Java always sends `admin` (a primitive boolean). */
export const CreateAccessConfigRequestHeader = defineHeader({
  accessKey: field.string(),
  secretKey: field.string().optional(),
  whiteRemoteAddress: field.string().optional(),
  admin: field.bool().optional(),
  defaultTopicPerm: field.string().optional(),
  defaultGroupPerm: field.string().optional(),
  topicPerms: field.string().optional(),
  groupPerms: field.string().optional(),
});

/** DELETE_ACL_CONFIG (51). */
export const DeleteAccessConfigRequestHeader = defineHeader({ accessKey: field.string() });

/**
 * UPDATE_GLOBAL_WHITE_ADDRS_CONFIG (53). Java marks aclFileFullPath not-null, yet its mqadmin
 * leaves it out unless `-p` is given; absent means the ACL file in use.
 */
export const UpdateGlobalWhiteAddrsConfigRequestHeader = defineHeader({
  globalWhiteAddrs: field.string(),
  aclFileFullPath: field.string().optional(),
});

/**
 * GET_BROKER_CLUSTER_ACL_INFO (52) response. `version` is the DataVersion as JSON; 4.9.x brokers
 * also send `allAclFileVersion` (file path → DataVersion, JSON), which 5.x clients read and fail
 * without, though 5.x brokers stopped sending it.
 */
export const GetBrokerAclConfigResponseHeader = defineHeader({
  version: field.string(),
  allAclFileVersion: field.string().optional(),
  brokerName: field.string(),
  brokerAddr: field.string(),
  clusterName: field.string(),
});

/** Java's UtilAll.split: absent stays absent (keep), blank is an empty list, else split on commas. */
export function splitList(text: string | undefined): string[] | null {
  if (text === undefined) return null;
  if (text.trim() === "") return [];
  const parts = text.split(",");
  // Java's String.split drops trailing empty strings.
  while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  return parts;
}
