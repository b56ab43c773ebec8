import { expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseProperties } from "../../src/config/properties.ts";
import { RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { request, startNameServer } from "./harness.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

test("UPDATE_NAMESRV_CONFIG checks every value as the config file would, and applies all keys or none", async () => {
  await using h = await startNameServer();
  const c = h.client();
  const update = async (text: string) => {
    const r = await c.invoke(h.addr, request(RequestCode.UPDATE_NAMESRV_CONFIG, null, utf8(text)));
    return { code: r.code, remark: r.remark };
  };
  expect([
    await update("enableAllTopicList=false\norderMessageEnable=yes\n"),
    await update("waitSecondsForService=-1\n"),
    await update("logLevel=loud\n"),
    await update("rocketbunHome=/tmp/elsewhere\n"),
  ]).toEqual([
    {
      code: ResponseCode.INVALID_PARAMETER,
      remark: 'orderMessageEnable: "yes" is not a bool (true or false)',
    },
    { code: ResponseCode.INVALID_PARAMETER, remark: "waitSecondsForService: -1 is below the minimum 0" },
    {
      code: ResponseCode.INVALID_PARAMETER,
      remark: 'logLevel: "loud" is not one of fatal, error, warn, info, debug, trace, silent',
    },
    { code: ResponseCode.NO_PERMISSION, remark: "Can not update config in black list." },
  ]);
  // The first request's good key was not applied either.
  expect(h.ns.config.namesrv.enableAllTopicList).toBe(true);
  expect(h.ns.config.changed()).toEqual([]);
});

test("only the keys changed at run time are written, and a NameServer started with them shows them again", async () => {
  await using h = await startNameServer();
  const c = h.client();
  const reply = await c.invoke(
    h.addr,
    request(RequestCode.UPDATE_NAMESRV_CONFIG, null, utf8("waitSecondsForService=+7\nmyKey= x \n")),
  );
  expect(reply.code).toBe(ResponseCode.SUCCESS);
  const saved = parseProperties(await readFile(join(h.dir, "namesrv.properties"), "utf8"));
  // Values are written as they were understood: "+7" as 7, a free-form value trimmed.
  expect(saved).toEqual(
    new Map([
      ["myKey", "x"],
      ["waitSecondsForService", "7"],
    ]),
  );

  await using again = await startNameServer({}, {}, saved);
  const all = await again.client().invoke(again.addr, request(RequestCode.GET_NAMESRV_CONFIG, null, null));
  const lines = new TextDecoder().decode(all.body!).split("\n");
  // waitSecondsForService is applied by the loader in a real start; the free-form key comes back here.
  expect(lines).toContain("myKey=x");
  expect(again.ns.config.changed()).toEqual([
    ["myKey", "x"],
    ["waitSecondsForService", "7"],
  ]);
});
