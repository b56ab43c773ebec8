/**
 * KV config requests (spec remoting §7.5): PUT_KV_CONFIG, GET_KV_CONFIG, DELETE_KV_CONFIG,
 * GET_KVLIST_BY_NAMESPACE.
 */

import {
  GetKVConfigResponseHeader,
  GetKVListByNamespaceRequestHeader,
  KVConfigKeyHeader,
  PutKVConfigRequestHeader,
} from "../../protocol/headers/namesrv.ts";
import { encodeKVTable } from "../../protocol/route/index.ts";
import { type Processor, RemotingCommand, ResponseCode } from "../../remoting/index.ts";
import { type NamesrvContext, success } from "../context.ts";

export function kvProcessors(ctx: NamesrvContext) {
  const putKvConfig: Processor = async (req) => {
    const h = PutKVConfigRequestHeader.decode(req.extFields);
    if (h.namespace === undefined || h.key === undefined) {
      return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "namespace or key is null");
    }
    await ctx.kv.put(h.namespace, h.key, h.value);
    return success();
  };

  const getKvConfig: Processor = (req) => {
    const h = KVConfigKeyHeader.decode(req.extFields);
    const value = ctx.kv.get(h.namespace, h.key);
    if (value === undefined) {
      return RemotingCommand.response(
        ResponseCode.QUERY_NOT_FOUND,
        `No config item, Namespace: ${h.namespace} Key: ${h.key}`,
        {},
      );
    }
    return success(GetKVConfigResponseHeader.encode({ value }));
  };

  const deleteKvConfig: Processor = async (req) => {
    const h = KVConfigKeyHeader.decode(req.extFields);
    await ctx.kv.delete(h.namespace, h.key);
    return success();
  };

  const getKvListByNamespace: Processor = (req) => {
    const h = GetKVListByNamespaceRequestHeader.decode(req.extFields);
    const table = ctx.kv.list(h.namespace);
    if (!table) {
      return RemotingCommand.response(
        ResponseCode.QUERY_NOT_FOUND,
        `No config item, Namespace: ${h.namespace}`,
      );
    }
    return success(null, encodeKVTable(table));
  };

  return { putKvConfig, getKvConfig, deleteKvConfig, getKvListByNamespace };
}
