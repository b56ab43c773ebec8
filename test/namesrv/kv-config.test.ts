import { describe, expect, test } from "bun:test";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { decodeKVTable } from "../../src/protocol/route/index.ts";
import { RequestCode, ResponseCode, type SerializeType } from "../../src/remoting/index.ts";
import { request, SERIALIZE_TYPES, startNameServer } from "./harness.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null) => (b ? new TextDecoder().decode(b) : null);

describe.each(SERIALIZE_TYPES)("KV config over %s headers", (_name, st: SerializeType) => {
  test("put, get, list and delete round-trip, and the file holds Java's configTable form", async () => {
    await using h = await startNameServer();
    const c = h.client();
    const call = (code: number, ext: Record<string, string>) =>
      c.invoke(h.addr, request(code, ext, null, st));
    expect((await call(RequestCode.PUT_KV_CONFIG, { namespace: "ns", key: "k", value: "v" })).code).toBe(0);
    await call(RequestCode.PUT_KV_CONFIG, { namespace: "ns", key: "k2", value: "v2" });
    const got = await call(RequestCode.GET_KV_CONFIG, { namespace: "ns", key: "k" });
    expect({ code: got.code, ext: got.extFields }).toEqual({ code: 0, ext: { value: "v" } });
    const list = await call(RequestCode.GET_KVLIST_BY_NAMESPACE, { namespace: "ns" });
    expect(decodeKVTable(list.body!)).toEqual(
      new Map([
        ["k", "v"],
        ["k2", "v2"],
      ]),
    );
    expect(JSON.parse(await readFile(join(h.dir, "kvConfig.json"), "utf8"))).toEqual({
      configTable: { ns: { k: "v", k2: "v2" } },
    });
    expect((await call(RequestCode.DELETE_KV_CONFIG, { namespace: "ns", key: "k" })).code).toBe(0);
    const gone = await call(RequestCode.GET_KV_CONFIG, { namespace: "ns", key: "k" });
    expect({ code: gone.code, remark: gone.remark }).toEqual({
      code: ResponseCode.QUERY_NOT_FOUND,
      remark: "No config item, Namespace: ns Key: k",
    });
    const none = await call(RequestCode.GET_KVLIST_BY_NAMESPACE, { namespace: "nope" });
    expect({ code: none.code, remark: none.remark }).toEqual({
      code: ResponseCode.QUERY_NOT_FOUND,
      remark: "No config item, Namespace: nope",
    });
  });

  test("PUT_KV_CONFIG without namespace answers Java's remark", async () => {
    await using h = await startNameServer();
    const reply = await h
      .client()
      .invoke(h.addr, request(RequestCode.PUT_KV_CONFIG, { key: "k", value: "v" }, null, st));
    expect({ code: reply.code, remark: reply.remark }).toEqual({
      code: 1,
      remark: "namespace or key is null",
    });
  });

  test("UPDATE_NAMESRV_CONFIG changes live behaviour and persists; GET_NAMESRV_CONFIG lists sorted keys", async () => {
    await using h = await startNameServer();
    const c = h.client();
    const update = await c.invoke(
      h.addr,
      request(RequestCode.UPDATE_NAMESRV_CONFIG, null, utf8("enableAllTopicList=false\nmyKey=1\n"), st),
    );
    expect(update.code).toBe(0);
    const all = await c.invoke(h.addr, request(RequestCode.GET_NAMESRV_CONFIG, null, null, st));
    const lines = text(all.body)!.trimEnd().split("\n");
    expect(lines).toEqual([...lines].sort());
    expect(lines).toContain("enableAllTopicList=false");
    expect(lines).toContain("myKey=1");
    expect(lines).toContain("listenPort=0");
    const disabled = await c.invoke(
      h.addr,
      request(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, null, null, st),
    );
    expect({ code: disabled.code, remark: disabled.remark }).toEqual({ code: 1, remark: "disable" });
    expect(await readFile(join(h.dir, "namesrv.properties"), "utf8")).toContain("enableAllTopicList=false\n");
  });

  test("UPDATE_NAMESRV_CONFIG refuses black-listed keys", async () => {
    await using h = await startNameServer();
    for (const key of ["kvConfigPath", "configStorePath", "configBlackList", "rocketmqHome"]) {
      const reply = await h
        .client()
        .invoke(h.addr, request(RequestCode.UPDATE_NAMESRV_CONFIG, null, utf8(`${key}=/x`), st));
      expect({ code: reply.code, remark: reply.remark }).toEqual({
        code: ResponseCode.NO_PERMISSION,
        remark: "Can not update config in black list.",
      });
    }
  });
});

test("the KV store is loaded from kvConfigPath on start, fastjson form included", async () => {
  await using first = await startNameServer();
  const path = join(first.dir, "kv-loaded.json");
  await writeFile(path, '{"configTable":{"ORDER_TOPIC_CONFIG":{"T":"broker-a:4"}}}');
  await using h = await startNameServer({ kvConfigPath: path });
  expect(h.ns.kv.list("ORDER_TOPIC_CONFIG")).toEqual(new Map([["T", "broker-a:4"]]));
});
