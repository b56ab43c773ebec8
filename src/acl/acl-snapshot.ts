/**
 * The ACL in force: plain_acl.yml's data compiled once per load into what each request is checked
 * against (address matchers, permission maps, HMAC keys). Immutable: a reload or an update builds a
 * new snapshot and swaps it in, so a request is always checked against one whole file.
 */
import { type AddressMatcher, anyOf, compileAddressPattern } from "./address-matcher.ts";
import { ACCESS_KEY_MIN_LENGTH, SECRET_KEY_MIN_LENGTH } from "./constants.ts";
import { AclConfigError } from "./errors.ts";
import { parsePermission, parseResourcePerms } from "./permission.ts";
import type { PlainAccountConfig, PlainAclData } from "./plain-acl-file.ts";
import { type HmacKey, hmacKey } from "./signature.ts";

export interface AclAccount {
  readonly accessKey: string;
  readonly secretKey: string;
  readonly hmacKey: HmacKey;
  /** Requests from these addresses skip the signature and permission checks. */
  readonly white: AddressMatcher;
  readonly admin: boolean;
  readonly defaultTopicPerm: number;
  readonly defaultGroupPerm: number;
  /** Topics, and groups as `%RETRY%<group>`, with their permission bits. */
  readonly perms: ReadonlyMap<string, number>;
}

export interface AclSnapshot {
  readonly globalWhite: AddressMatcher;
  readonly accounts: ReadonlyMap<string, AclAccount>;
  /** Things Java logs and carries on with (a repeated accessKey: the first one counts). */
  readonly warnings: readonly string[];
}

export const EMPTY_SNAPSHOT: AclSnapshot = Object.freeze({
  globalWhite: () => false,
  accounts: new Map(),
  warnings: [],
});

/** Java's checkPlainAccessConfig; the secret is not repeated in the message (it ends up in logs). */
export function checkAccountKeys(account: Pick<PlainAccountConfig, "accessKey" | "secretKey">): void {
  const { accessKey, secretKey } = account;
  if (
    !accessKey ||
    !secretKey ||
    accessKey.length <= ACCESS_KEY_MIN_LENGTH ||
    secretKey.length <= SECRET_KEY_MIN_LENGTH
  ) {
    throw new AclConfigError(
      `The accessKey=${accessKey || null} and secretKey=${secretKey ? "***" : null} cannot be null and length should longer than 6`,
    );
  }
}

export function compileAccount(config: PlainAccountConfig): AclAccount {
  checkAccountKeys(config);
  const perms = new Map<string, number>();
  parseResourcePerms(config.groupPerms ?? [], "group", perms);
  parseResourcePerms(config.topicPerms ?? [], "topic", perms);
  return {
    accessKey: config.accessKey,
    secretKey: config.secretKey,
    hmacKey: hmacKey(config.secretKey),
    white: compileAddressPattern(config.whiteRemoteAddress),
    admin: config.admin === true,
    defaultTopicPerm: parsePermission(config.defaultTopicPerm),
    defaultGroupPerm: parsePermission(config.defaultGroupPerm),
    perms,
  };
}

/** Compiles a whole file; throws AclConfigError naming the account for anything unusable. */
export function compileAcl(data: PlainAclData): AclSnapshot {
  const warnings: string[] = [];
  const globalWhite = anyOf(
    data.globalWhiteRemoteAddresses.map((pattern, i) => {
      try {
        return compileAddressPattern(pattern);
      } catch (err) {
        throw new AclConfigError(`globalWhiteRemoteAddresses[${i}]: ${(err as Error).message}`);
      }
    }),
  );
  const accounts = new Map<string, AclAccount>();
  data.accounts.forEach((config, i) => {
    let account: AclAccount;
    try {
      account = compileAccount(config);
    } catch (err) {
      throw new AclConfigError(`accounts[${i}]: ${(err as Error).message}`);
    }
    if (accounts.has(account.accessKey)) {
      warnings.push(`The accessKey ${account.accessKey} is repeated; accounts[${i}] is ignored`);
      return;
    }
    accounts.set(account.accessKey, account);
  });
  return { globalWhite, accounts, warnings };
}
