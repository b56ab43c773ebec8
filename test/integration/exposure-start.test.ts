/**
 * `rocketbun start` as a user runs it. By default it listens on loopback only (bindAddress
 * 127.0.0.1) and warns of nothing. Opened with bindAddress=0.0.0.0 and ACL off, it logs exactly one
 * warn line per role, the NameServer's naming its port and the broker's naming its port and VIP
 * port; with aclEnable=true, none. A brokerIP1 the broker does not listen on gets its own warning.
 * Read from the child's stdout, where pino writes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/rocketbun-child.ts";

const repoRoot = join(import.meta.dir, "..", "..");
const BOOTED = /The broker\[.*boot success/;

interface LogLine {
  level: number;
  component?: string;
  msg: string;
  ports?: number[];
  bindAddress?: string;
  brokerIP1?: string;
}

const homes: string[] = [];

afterEach(async () => {
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

/** Runs start until the broker's boot line, stops it, and returns the JSON log lines before that. */
async function startAndStop(conf: string): Promise<{ lines: LogLine[]; ns: number; broker: number }> {
  const home = await mkdtemp(join(tmpdir(), "rocketbun-exposure-"));
  homes.push(home);
  const file = join(home, "start.conf");
  await writeFile(file, conf);
  const [ns, broker, gateway] = [freePort(), freePort(), freePort()];
  const args = ["start", "--home", home, "-c", file, "--namesrv-port", String(ns)];
  args.push("--broker-port", String(broker), "--gateway-port", String(gateway));
  const child = Bun.spawn([process.execPath, "src/cli/main.ts", ...args], {
    cwd: repoRoot,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
    env: { PATH: process.env.PATH ?? "", ROCKETBUN_LOG_LEVEL: "warn" },
  });
  let text = "";
  try {
    const reader = child.stdout.getReader();
    const decoder = new TextDecoder();
    while (!BOOTED.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`start exited before booting: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
    reader.releaseLock();
  } finally {
    child.kill("SIGTERM");
    await child.exited;
  }
  const lines = text
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as LogLine);
  return { lines, ns, broker };
}

const exposureLines = (lines: LogLine[]) => lines.filter((l) => l.msg.includes("beyond loopback"));
const brokerIpLines = (lines: LogLine[]) => lines.filter((l) => l.msg.includes("publishes brokerIP1"));

describe("rocketbun start's exposure warning", () => {
  test("ACL off on the wildcard address: one warn line per role, naming its ports", async () => {
    const { lines, ns, broker } = await startAndStop("brokerIP1=127.0.0.1\nbindAddress=0.0.0.0\n");
    expect(exposureLines(lines).map(({ level, component, ports }) => ({ level, component, ports }))).toEqual([
      { level: 40, component: "namesrv", ports: [ns] },
      { level: 40, component: "broker", ports: [broker, broker - 2] },
    ]);
    expect(exposureLines(lines)[0]!.msg).toStartWith(
      `NameServer listens on port 0.0.0.0:${ns}, beyond loopback`,
    );
    expect(exposureLines(lines)[1]!.msg).toStartWith(
      `Broker listens on port 0.0.0.0:${broker} and VIP port 0.0.0.0:${broker - 2}, beyond loopback`,
    );
  });

  test("aclEnable=true: no warning", async () => {
    const { lines } = await startAndStop("brokerIP1=127.0.0.1\nbindAddress=0.0.0.0\naclEnable=true\n");
    expect(exposureLines(lines)).toEqual([]);
  });

  test("by default start listens on loopback only: no warning", async () => {
    const { lines } = await startAndStop("brokerIP1=127.0.0.1\n");
    expect(exposureLines(lines)).toEqual([]);
    expect(brokerIpLines(lines)).toEqual([]);
  });
});

describe("rocketbun start's brokerIP1 warning", () => {
  test("a brokerIP1 other than the loopback address it listens on: one warn line naming both", async () => {
    const { lines } = await startAndStop("brokerIP1=192.0.2.7\n");
    expect(
      brokerIpLines(lines).map(({ level, component, bindAddress, brokerIP1 }) => ({
        level,
        component,
        bindAddress,
        brokerIP1,
      })),
    ).toEqual([{ level: 40, component: "broker", bindAddress: "127.0.0.1", brokerIP1: "192.0.2.7" }]);
    expect(brokerIpLines(lines)[0]!.msg).toStartWith(
      "the broker listens only on 127.0.0.1 but publishes brokerIP1=192.0.2.7 to clients",
    );
  });

  test("on every interface any brokerIP1 is reachable: no warning", async () => {
    const { lines } = await startAndStop("brokerIP1=192.0.2.7\nbindAddress=0.0.0.0\naclEnable=true\n");
    expect(brokerIpLines(lines)).toEqual([]);
  });
});
