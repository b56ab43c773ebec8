/**
 * The NameServer logs one warn line at start when its port listens beyond loopback with ACL off, and
 * none on loopback or with ACL on. (The wildcard bind is held only for the moment of the test.)
 */
import { describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { namesrvConfig } from "../../src/config/namesrv-config.ts";
import { defaultsOf } from "../../src/config/schema.ts";
import { createNameServer, type NamesrvAclOptions } from "../../src/namesrv/index.ts";

interface LogLine {
  level: number;
  msg: string;
  bindAddress?: string;
  ports?: number[];
}

const WARN = 40;

/** Starts and stops a NameServer; returns its warn lines. */
async function warnings(bindAddress: string, acl?: Omit<NamesrvAclOptions, "file">): Promise<LogLine[]> {
  const dir = await mkdtemp(join(tmpdir(), "rocketbun-namesrv-exposure-"));
  const lines: LogLine[] = [];
  const log = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const file = join(dir, "plain_acl.yml");
  await writeFile(file, "accounts: []\n");
  const ns = createNameServer(
    {
      namesrv: {
        ...defaultsOf(namesrvConfig),
        kvConfigPath: join(dir, "kvConfig.json"),
        configStorePath: join(dir, "namesrv.properties"),
      },
      server: { listenPort: 0, bindAddress, serverChannelMaxIdleTimeSeconds: 120 },
      ...(acl ? { acl: { ...acl, file } } : {}),
    },
    { log },
  );
  try {
    await ns.start();
    const port = ns.port;
    return lines
      .filter((l) => l.level === WARN)
      .map((l) => ({ ...l, msg: l.msg.replaceAll(String(port), "<port>"), ports: l.ports?.map(() => 0) }));
  } finally {
    await ns.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

describe("the exposure warning", () => {
  test("a NameServer on the wildcard address with ACL off warns once, naming the port and aclEnable", async () => {
    const lines = await warnings("0.0.0.0");
    expect(lines.map(({ level, bindAddress, ports }) => ({ level, bindAddress, ports }))).toEqual([
      { level: WARN, bindAddress: "0.0.0.0", ports: [0] },
    ]);
    expect(lines[0]!.msg).toStartWith(
      "NameServer listens on port 0.0.0.0:<port>, beyond loopback, with ACL off: anyone who reaches it can register, unregister or impersonate brokers",
    );
    expect(lines[0]!.msg).toEndWith(
      "Set aclEnable=true in the config file and give accounts in plain_acl.yml (aclPlainFile), or bindAddress=127.0.0.1",
    );
  });

  test("no warning on loopback, nor with ACL on", async () => {
    expect(await warnings("127.0.0.1")).toEqual([]);
    expect(
      await warnings("0.0.0.0", { enable: true, watchIntervalMs: 60_000, readNeedSignature: false }),
    ).toEqual([]);
  });
});
