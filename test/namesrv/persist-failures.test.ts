import { expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { flakyWriter } from "../support/flaky-writer.ts";
import { waitFor } from "../support/rocketbun-child.ts";
import { request, startNameServer } from "./harness.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

test("KV puts made while kvConfig.json cannot be written are answered, served, and written once writing works", async () => {
  const writer = flakyWriter();
  await using h = await startNameServer({}, { files: { write: writer.write, retryMs: 1 } });
  const c = h.client();
  const put = (key: string, value: string) =>
    c.invoke(h.addr, request(RequestCode.PUT_KV_CONFIG, { namespace: "ORDER_TOPIC_CONFIG", key, value }));
  const path = join(h.dir, "kvConfig.json");
  expect((await put("T1", "broker-a:4")).code).toBe(ResponseCode.SUCCESS);
  const before = await readFile(path);

  writer.failing = true;
  expect((await put("T2", "broker-a:8")).code).toBe(ResponseCode.SUCCESS);
  expect((await put("T3", "broker-b:2")).code).toBe(ResponseCode.SUCCESS);
  const got = await c.invoke(
    h.addr,
    request(RequestCode.GET_KV_CONFIG, { namespace: "ORDER_TOPIC_CONFIG", key: "T3" }),
  );
  expect({ code: got.code, value: got.extFields?.value }).toEqual({ code: 0, value: "broker-b:2" });
  await waitFor("a failed retry", () => writer.attempts >= 5);
  expect(await readFile(path)).toEqual(before);

  writer.failing = false;
  await waitFor("kvConfig.json with every put", async () => {
    const saved = JSON.parse(await readFile(path, "utf8"));
    return Object.keys(saved.configTable.ORDER_TOPIC_CONFIG).join() === "T1,T2,T3";
  });
});

test("an UPDATE_NAMESRV_CONFIG made while its file cannot be written takes effect and is written later", async () => {
  const writer = flakyWriter();
  await using h = await startNameServer({}, { files: { write: writer.write, retryMs: 1 } });
  const c = h.client();
  writer.failing = true;
  const reply = await c.invoke(
    h.addr,
    request(RequestCode.UPDATE_NAMESRV_CONFIG, null, utf8("enableAllTopicList=false\n")),
  );
  expect(reply.code).toBe(ResponseCode.SUCCESS);
  const disabled = await c.invoke(h.addr, request(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER));
  expect({ code: disabled.code, remark: disabled.remark }).toEqual({ code: 1, remark: "disable" });
  await waitFor("a failed retry", () => writer.attempts >= 3);
  writer.failing = false;
  await waitFor("the runtime config file", async () =>
    (await readFile(join(h.dir, "namesrv.properties"), "utf8").catch(() => "")).includes(
      "enableAllTopicList=false\n",
    ),
  );
});
