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
 *   7. admin account → allowed; an admin-only code  → "Need admin permission for request code=…"
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
import { computeSignature, SortedKeys, signaturesEqual } from "./signature.ts";

/** What is known about one connection under one snapshot, so it is worked out once, not per request. */
interface PeerFacts {
  snapshot: AclSnapshot;
  host: string;
  globallyWhite: boolean;
  /** The account last used on this connection and whether its white list admits the peer. */
  account: AclAccount | null;
  accountWhite: boolean;
}

/** Java's PlainAccessResource.printStr. */
function describe(resource: string, isGroup: boolean): string {
  return isGroup ? `group:${resource.slice(RETRY_GROUP_TOPIC_PREFIX.length)}` : `topic:${resource}`;
}

function checkPerms(account: AclAccount, code: number, needed: NeededPerms): void {
  if (account.admin) return;
  if (ADMIN_ONLY_CODES.has(code)) {
    throw new AclDenied(
      `Need admin permission for request code=${code}, but accessKey=${account.accessKey} is not`,
    );
  }
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
export type Caller =
  | { readonly kind: "white-listed" }
  | { readonly kind: "account"; readonly account: AclAccount; readonly signed: boolean };

const WHITE_LISTED: Caller = Object.freeze({ kind: "white-listed" });

export class PlainAccessValidator {
  private snapshot: AclSnapshot = EMPTY_SNAPSHOT;
  private readonly sortedKeys = new SortedKeys();
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
  identifyAccount(request: RemotingCommand, connection: Connection): Caller & { kind: "account" } {
    return this.accountOf(request, this.peerFacts(connection));
  }

  private accountOf(request: RemotingCommand, peer: PeerFacts): Caller & { kind: "account" } {
    const ext = request.extFields;
    const accessKey = ext?.[AclField.ACCESS_KEY];
    if (ext === null || accessKey === undefined) throw new AclDenied("No accessKey is configured");
    const account = peer.snapshot.accounts.get(accessKey);
    if (account === undefined) throw new AclDenied(`No acl config for ${accessKey}`);
    if (peer.account !== account) {
      peer.account = account;
      peer.accountWhite = account.white(peer.host);
    }
    if (peer.accountWhite) return { kind: "account", account, signed: false };
    const expected = computeSignature(
      account.hmacKey,
      ext,
      request.body,
      this.sortedKeys.of(ext),
      request.version,
    );
    if (!signaturesEqual(expected, ext[AclField.SIGNATURE])) {
      throw new AclDenied(`Check signature failed for accessKey=${accessKey}`);
    }
    return { kind: "account", account, signed: true };
  }

  private peerFacts(connection: Connection): PeerFacts {
    const known = this.peers.get(connection);
    if (known !== undefined && known.snapshot === this.snapshot) return known;
    const host = known?.host ?? hostOf(connection.remoteAddress);
    const facts: PeerFacts = {
      snapshot: this.snapshot,
      host,
      globallyWhite: this.snapshot.globalWhite(host),
      account: null,
      accountWhite: false,
    };
    this.peers.set(connection, facts);
    return facts;
  }
}
