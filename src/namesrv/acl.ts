/**
 * The NameServer's ACL (beyond Apache RocketMQ, whose NameServer checks nothing): what each request
 * code asks of its sender, and the check built from that over the ACL 1.0 accounts file.
 *
 *   admin  changes routes, liveness, KV or config: a named account with `admin: true`, proved by
 *          its signature or by the account's whiteRemoteAddress. globalWhiteRemoteAddresses is not
 *          enough: an address names nobody, and a registration from anybody could point a broker's
 *          route elsewhere.
 *   read   open to all by default; with `aclReadNeedSignature` a valid signature of any account or a
 *          white-listed address (either white list), as the broker asks of its clients.
 *
 * A code the table does not name is treated as admin, so a new processor is closed until classified.
 */
import { AclDenied } from "../acl/errors.ts";
import type { AclCheck } from "../acl/plain-acl.ts";
import { RequestCode, requestCodeName } from "../remoting/request-code.ts";

export const NamesrvAccess = { READ: "read", ADMIN: "admin" } as const;
export type NamesrvAccess = (typeof NamesrvAccess)[keyof typeof NamesrvAccess];

const { READ, ADMIN } = NamesrvAccess;

/** Every code of the NameServer's processor table (processors.ts), by what it needs. */
export const NAMESRV_CODE_ACCESS: ReadonlyMap<number, NamesrvAccess> = new Map([
  [RequestCode.PUT_KV_CONFIG, ADMIN],
  [RequestCode.GET_KV_CONFIG, READ],
  [RequestCode.DELETE_KV_CONFIG, ADMIN],
  [RequestCode.GET_KVLIST_BY_NAMESPACE, READ],
  [RequestCode.REGISTER_BROKER, ADMIN],
  [RequestCode.UNREGISTER_BROKER, ADMIN],
  // Both keep a broker alive in the routes (they refresh its last-update time).
  [RequestCode.QUERY_DATA_VERSION, ADMIN],
  [RequestCode.BROKER_HEARTBEAT, ADMIN],
  [RequestCode.GET_BROKER_MEMBER_GROUP, READ],
  [RequestCode.GET_ROUTEINFO_BY_TOPIC, READ],
  [RequestCode.GET_BROKER_CLUSTER_INFO, READ],
  [RequestCode.WIPE_WRITE_PERM_OF_BROKER, ADMIN],
  [RequestCode.ADD_WRITE_PERM_OF_BROKER, ADMIN],
  [RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, READ],
  [RequestCode.DELETE_TOPIC_IN_NAMESRV, ADMIN],
  [RequestCode.REGISTER_TOPIC_IN_NAMESRV, ADMIN],
  [RequestCode.GET_TOPICS_BY_CLUSTER, READ],
  [RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_NS, READ],
  [RequestCode.GET_UNIT_TOPIC_LIST, READ],
  [RequestCode.GET_HAS_UNIT_SUB_TOPIC_LIST, READ],
  [RequestCode.GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST, READ],
  [RequestCode.UPDATE_NAMESRV_CONFIG, ADMIN],
  [RequestCode.GET_NAMESRV_CONFIG, READ],
]);

export function accessOf(code: number): NamesrvAccess {
  return NAMESRV_CODE_ACCESS.get(code) ?? ADMIN;
}

export interface NamesrvAclPolicy {
  /** Reads need a signature or a white-listed address too (default: reads are open). */
  readonly readNeedSignature: boolean;
}

function describe(code: number): string {
  return `request code=${code} (${requestCodeName(code)})`;
}

/** The NameServer's rules over the validator, for PlainAcl.guardWith. */
export function namesrvAclCheck(policy: NamesrvAclPolicy): AclCheck {
  return (validator, request, connection) => {
    if (accessOf(request.code) === READ) {
      if (policy.readNeedSignature) validator.identify(request, connection);
      return;
    }
    let caller: ReturnType<typeof validator.identifyAccount>;
    try {
      caller = validator.identifyAccount(request, connection);
    } catch (err) {
      // Say what the request lacked and what it needs: an operator reading the broker's log or the
      // admin tool's error should not have to know which codes the NameServer protects.
      if (err instanceof AclDenied) {
        throw new AclDenied(
          `${err.remark}; ${describe(request.code)} needs an admin account at the NameServer`,
        );
      }
      throw err;
    }
    if (!caller.account.admin) {
      throw new AclDenied(
        `Need admin permission for ${describe(request.code)} at the NameServer, but accessKey=${caller.account.accessKey} is not`,
      );
    }
  };
}
