/**
 * Custom headers of the NameServer requests and responses (spec remoting §7.5), as field tables.
 * Names and Java types follow `R/protocol/header/namesrv/*.java`; required fields are Java's
 * `@CFNotNull` ones that the NameServer actually relies on.
 */
import { defineHeader, field } from "../../remoting/index.ts";

export const PutKVConfigRequestHeader = defineHeader({
  // Checked by the processor itself, to answer Java's exact remark "namespace or key is null".
  namespace: field.string().optional(),
  key: field.string().optional(),
  value: field.string(),
});

export const KVConfigKeyHeader = defineHeader({ namespace: field.string(), key: field.string() });
export const GetKVConfigResponseHeader = defineHeader({ value: field.string().optional() });
export const GetKVListByNamespaceRequestHeader = defineHeader({ namespace: field.string() });

export const RegisterBrokerRequestHeader = defineHeader({
  brokerName: field.string(),
  brokerAddr: field.string(),
  clusterName: field.string(),
  haServerAddr: field.string(),
  brokerId: field.long(),
  /** 5.x: per-broker expiry; absent means the 120 s default. */
  heartbeatTimeoutMillis: field.long().optional(),
  /** 5.x: absent marks an old (4.x) broker. */
  enableActingMaster: field.bool().optional(),
  compressed: field.bool().optional(),
  bodyCrc32: field.int().optional(),
});

export const RegisterBrokerResponseHeader = defineHeader({
  haServerAddr: field.string().optional(),
  masterAddr: field.string().optional(),
});

export const UnRegisterBrokerRequestHeader = defineHeader({
  brokerName: field.string(),
  brokerAddr: field.string(),
  clusterName: field.string(),
  brokerId: field.long(),
});

export const BrokerHeartbeatRequestHeader = defineHeader({
  clusterName: field.string(),
  brokerAddr: field.string(),
  brokerName: field.string(),
  brokerId: field.long().optional(),
  epoch: field.int().optional(),
  maxOffset: field.long().optional(),
  confirmOffset: field.long().optional(),
  heartbeatTimeoutMills: field.long().optional(),
  electionPriority: field.int().optional(),
});

export const QueryDataVersionRequestHeader = defineHeader({
  brokerName: field.string(),
  brokerAddr: field.string(),
  clusterName: field.string(),
  brokerId: field.long(),
});
export const QueryDataVersionResponseHeader = defineHeader({ changed: field.bool() });

export const GetRouteInfoRequestHeader = defineHeader({
  topic: field.string(),
  acceptStandardJsonOnly: field.bool().optional(),
});

export const BrokerNameHeader = defineHeader({ brokerName: field.string() });
export const WipeWritePermOfBrokerResponseHeader = defineHeader({ wipeTopicCount: field.int() });
export const AddWritePermOfBrokerResponseHeader = defineHeader({ addTopicCount: field.int() });

export const DeleteTopicFromNamesrvRequestHeader = defineHeader({
  topic: field.string(),
  clusterName: field.string().optional(),
});
export const RegisterTopicRequestHeader = defineHeader({ topic: field.string() });
export const GetTopicsByClusterRequestHeader = defineHeader({ cluster: field.string() });

export const GetBrokerMemberGroupRequestHeader = defineHeader({
  clusterName: field.string(),
  brokerName: field.string(),
});

/** The non-header extField carrying a broker's zone (Java's MixAll.ZONE_NAME). */
export const ZONE_NAME_EXT = "__ZONE_NAME";
