/**
 * NameServer administration from the client (Java's DefaultMQAdminExt: createAndUpdateKvConfig,
 * deleteKvConfig, wipeWritePermOfBroker, addWritePermOfBroker, updateNameServerConfig,
 * getNameServerConfig). A NameServer checking ACL takes the changes from admin accounts only: give
 * the admin client accessKey/secretKey.
 */
import { parseProperties, stringifyProperties } from "../config/properties.ts";
import {
  AddWritePermOfBrokerResponseHeader,
  BrokerNameHeader,
  KVConfigKeyHeader,
  PutKVConfigRequestHeader,
  WipeWritePermOfBrokerResponseHeader,
} from "../protocol/headers/namesrv.ts";
import { type ExtFields, RequestCode, ResponseCode } from "../remoting/index.ts";
import type { Admin } from "./admin.ts";
import { decodeAnswer } from "./errors.ts";
import { bodyText, call } from "./rpc.ts";

const encoder = new TextEncoder();

function invoke(
  admin: Admin,
  addr: string,
  code: number,
  ext: ExtFields | null,
  body: Uint8Array | null = null,
) {
  return call(admin.client.remoting, addr, code, ext, body, admin.client.options.mqClientApiTimeoutMs);
}

/** Every NameServer the admin was given, in order. */
export function namesrvAddrs(admin: Admin): readonly string[] {
  return admin.client.namesrv.addrs;
}

/** PUT_KV_CONFIG on every NameServer, one after another; the first failure stops it. */
export async function putKvConfig(
  admin: Admin,
  namespace: string,
  key: string,
  value: string,
): Promise<void> {
  const ext = PutKVConfigRequestHeader.encode({ namespace, key, value });
  for (const addr of namesrvAddrs(admin)) await invoke(admin, addr, RequestCode.PUT_KV_CONFIG, { ...ext });
}

/** GET_KV_CONFIG from the first NameServer that answers; null when it has no such key. */
export async function getKvConfig(admin: Admin, namespace: string, key: string): Promise<string | null> {
  const ext = KVConfigKeyHeader.encode({ namespace, key });
  let last: unknown;
  for (const addr of namesrvAddrs(admin)) {
    try {
      const r = await call(
        admin.client.remoting,
        addr,
        RequestCode.GET_KV_CONFIG,
        { ...ext },
        null,
        admin.client.options.mqClientApiTimeoutMs,
        [ResponseCode.SUCCESS, ResponseCode.QUERY_NOT_FOUND],
      );
      return r.code === ResponseCode.SUCCESS ? (r.ext("value") ?? "") : null;
    } catch (err) {
      last = err;
    }
  }
  throw last;
}

/** DELETE_KV_CONFIG on every NameServer (deleting an absent key succeeds, as in Java). */
export async function deleteKvConfig(admin: Admin, namespace: string, key: string): Promise<void> {
  const ext = KVConfigKeyHeader.encode({ namespace, key });
  for (const addr of namesrvAddrs(admin)) await invoke(admin, addr, RequestCode.DELETE_KV_CONFIG, { ...ext });
}

/** WIPE_WRITE_PERM_OF_BROKER at one NameServer: how many of the broker's topics lost write permission. */
export async function wipeWritePerm(admin: Admin, namesrvAddr: string, brokerName: string): Promise<number> {
  const code = RequestCode.WIPE_WRITE_PERM_OF_BROKER;
  const r = await invoke(admin, namesrvAddr, code, BrokerNameHeader.encode({ brokerName }));
  return decodeAnswer(
    namesrvAddr,
    code,
    () => WipeWritePermOfBrokerResponseHeader.decode(r.extFields).wipeTopicCount,
  );
}

/** ADD_WRITE_PERM_OF_BROKER at one NameServer: how many of the broker's topics got it back. */
export async function addWritePerm(admin: Admin, namesrvAddr: string, brokerName: string): Promise<number> {
  const code = RequestCode.ADD_WRITE_PERM_OF_BROKER;
  const r = await invoke(admin, namesrvAddr, code, BrokerNameHeader.encode({ brokerName }));
  return decodeAnswer(
    namesrvAddr,
    code,
    () => AddWritePermOfBrokerResponseHeader.decode(r.extFields).addTopicCount,
  );
}

/** UPDATE_NAMESRV_CONFIG with `key=value` lines, at each of `addrs` (default: every NameServer). */
export async function updateNamesrvConfig(
  admin: Admin,
  changes: ReadonlyMap<string, string>,
  addrs: readonly string[] = namesrvAddrs(admin),
): Promise<void> {
  const body = encoder.encode(stringifyProperties([...changes]));
  for (const addr of addrs) await invoke(admin, addr, RequestCode.UPDATE_NAMESRV_CONFIG, null, body);
}

/** GET_NAMESRV_CONFIG of each of `addrs` (default: every NameServer), address → key → value. */
export async function namesrvConfig(
  admin: Admin,
  addrs: readonly string[] = namesrvAddrs(admin),
): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  for (const addr of addrs) {
    const r = await invoke(admin, addr, RequestCode.GET_NAMESRV_CONFIG, null);
    out.set(
      addr,
      decodeAnswer(addr, RequestCode.GET_NAMESRV_CONFIG, () =>
        parseProperties(bodyText(r), "GET_NAMESRV_CONFIG body"),
      ),
    );
  }
  return out;
}
