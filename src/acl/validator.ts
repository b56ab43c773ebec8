/**
 * Checks one request against the ACL in force, in the order of Java's PlainPermissionManager.validate
 * and PlainPermissionChecker.check; the first failure throws AclDenied with Java's message:
 *
 *   1. the peer matches globalWhiteRemoteAddresses  → allowed, nothing else checked
 *   2. no AccessKey field                           → "No accessKey is configured"
 *   3. no such account                              → "No acl config for <ak>"
 *   4. the peer matches the account's whiteRemoteAddress → allowed
 *   5. Signature differs                            → "Check signature failed for accessKey=<ak>"
 *   6. a PUB to RMQ_SYS_TRACE_TOPIC                 → allowed (message trace)
 *   7. an admin-only code from a non-admin         → "Need admin permission for request code=…";
 *      an admin account with no topicPerms/groupPerms → allowed
 *   8. each resource against its own or the default permission → "No permission for topic:…" /
 *      "No default permission for group:…"
 *
 * Resources are read after the signature is known good (Java reads them first), so a forged
 * request costs no body parsing.
 */
import { RETRY_GROUP_TOPIC_PREFIX } from "../protocol/topic-names.ts";
import type { RemotingCommand } from "../remoting/command.ts";
import type { Connection } from "../remoting/connection.ts";
import { type AclAccount, type AclSnapshot, EMPTY_SNAPSHOT } from "./acl-snapshot.ts";
import { hostOf } from "./address-matcher.ts";
import { AclField, TRACE_TOPIC } from "./constants.ts";
import { AclDenied } from "./errors.ts";
import { ADMIN_ONLY_CODES, isRetryTopic, Permission, permits } from "./permission.ts";
import { type NeededPerms, neededPerms } from "./resource-of-request.ts";
import { SignedKeys } from "./signature.ts";

/** What is known about one connection under one snapshot, so it is worked out once, not per request. */
interface PeerFacts {
  snapshot: AclSnapshot;
  host: string;
  globallyWhite: boolean;
  /**
   * Who requests naming the account last used on this connection speak for (`signed` false: its
   * white list admits the peer), kept so a run of requests allocates nothing and hashes no key.
   */
  caller: AccountCaller | null;
}

/** Java's PlainAccessResource.printStr. */
function describe(resource: string, isGroup: boolean): string {
  return isGroup ? `group:${resource.slice(RETRY_GROUP_TOPIC_PREFIX.length)}` : `topic:${resource}`;
}

/**
 * Java's PlainPermissionChecker.check. An admin account passes whatever it touches only while it has
 * no topicPerms or groupPerms: one that has some is held to them and to its defaults, as any other.
 */
function checkPerms(account: AclAccount, code: number, needed: NeededPerms): void {
  if (!account.admin && ADMIN_ONLY_CODES.has(code)) {
    throw new AclDenied(
      `Need admin permission for request code=${code}, but accessKey=${account.accessKey} is not`,
    );
  }
  if (account.admin && account.perms.size === 0) return;
  for (const [resource, perm] of needed) {
    const isGroup = isRetryTopic(resource);
    const owned = account.perms.get(resource);
    if (owned === undefined) {
      const fallback = isGroup ? account.defaultGroupPerm : account.defaultTopicPerm;
      if (!permits(perm, fallback))
        throw new AclDenied(`No default permission for ${describe(resource, isGroup)}`);
    } else if (!permits(perm, owned)) {
      throw new AclDenied(`No permission for ${describe(resource, isGroup)}`);
    }
  }
}

/**
 * Who a request speaks for. `white-listed`: the peer is in globalWhiteRemoteAddresses and no account
 * was looked at. `account`: the account named by AccessKey, vouched for by its signature (`signed`)
 * or by the peer matching the account's own whiteRemoteAddress.
 */
export type Caller = { readonly kind: "white-listed" } | AccountCaller;

type AccountCaller = { readonly kind: "account"; readonly account: AclAccount; readonly signed: boolean };

const WHITE_LISTED: Caller = Object.freeze({ kind: "white-listed" });

export class PlainAccessValidator {
  private snapshot: AclSnapshot = EMPTY_SNAPSHOT;
  private readonly signedKeys = new SignedKeys();
  private readonly peers = new WeakMap<Connection, PeerFacts>();

  get current(): AclSnapshot {
    return this.snapshot;
  }

  /** Puts a newly loaded ACL in force; requests already past the check are not revisited. */
  use(snapshot: AclSnapshot): void {
    this.snapshot = snapshot;
  }

  /** The broker's check: returns when `request` may run; throws AclDenied naming what is missing. */
  check(request: RemotingCommand, connection: Connection): void {
    const caller = this.identify(request, connection);
    if (caller.kind === "white-listed" || !caller.signed) return;
    const needed = neededPerms(request);
    if (needed.get(TRACE_TOPIC) === Permission.PUB) return;
    checkPerms(caller.account, request.code, needed);
  }

  /** Steps 1–5: the global white list, else the account the request proves it speaks for. */
  identify(request: RemotingCommand, connection: Connection): Caller {
    const peer = this.peerFacts(connection);
    if (peer.globallyWhite) return WHITE_LISTED;
    return this.accountOf(request, peer);
  }

  /**
   * Steps 2–5 whatever the global white list says: for requests that need a named account (the
   * NameServer's state changes), an address alone does not say who is asking.
   */
  identifyAccount(request: RemotingCommand, connection: Connection): AccountCaller {
    return this.accountOf(request, this.peerFacts(connection));
  }

  private accountOf(request: RemotingCommand, peer: PeerFacts): AccountCaller {
    const ext = request.extFields;
    const accessKey = ext?.[AclField.ACCESS_KEY];
    if (ext === null || accessKey === undefined) throw new AclDenied("No accessKey is configured");
    let caller = peer.caller;
    // Facts are per snapshot, in which an access key names one account.
    if (caller === null || caller.account.accessKey !== accessKey) {
      const account = peer.snapshot.accounts.get(accessKey);
      if (account === undefined) throw new AclDenied(`No acl config for ${accessKey}`);
      caller = Object.freeze({ kind: "account", account, signed: !account.white(peer.host) });
      peer.caller = caller;
    }
    if (!caller.signed) return caller;
    const keys = this.signedKeys.of(ext, request.version);
    if (!caller.account.hmacKey.verifyFields(ext, keys, request.body, ext[AclField.SIGNATURE])) {
      throw new AclDenied(`Check signature failed for accessKey=${accessKey}`);
    }
    return caller;
  }

  private peerFacts(connection: Connection): PeerFacts {
    const known = this.peers.get(connection);
    if (known !== undefined && known.snapshot === this.snapshot) return known;
    const host = known?.host ?? hostOf(connection.remoteAddress);
    const facts: PeerFacts = {
      snapshot: this.snapshot,
      host,
      globallyWhite: this.snapshot.globalWhite(host),
      caller: null,
    };
    this.peers.set(connection, facts);
    return facts;
  }
}
