import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatHelp } from "../../src/cli/args.ts";
import { COMMANDS, mainHelp } from "../../src/cli/main.ts";
import { detectHost } from "../../src/config/host.ts";
import { loadRoleConfig } from "../../src/config/load.ts";
import { formatConfig } from "../../src/config/print.ts";
import type { RoleName } from "../../src/config/role-config.ts";
import { type CliResult, freePort, runCli } from "../support/rocketbun-child.ts";

const repoRoot = join(import.meta.dir, "..", "..");
let dir = "";
let home = "";
let env: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-cli-"));
  home = join(dir, "home");
  await mkdir(home);
  // A fixed, minimal environment: the child's defaults then depend on nothing outside the test.
  env = { PATH: process.env.PATH ?? "", HOME: home, ROCKETBUN_LOG_LEVEL: "silent" };
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function cli(args: readonly string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, { ...env, ...extraEnv });
}

/** What `-p` must print: the same loader, with the child's environment and home directory. */
async function expectedPrint(
  role: RoleName,
  options: { file?: string; overrides?: Record<string, string>; importantOnly?: boolean } = {},
): Promise<string> {
  const { file, overrides, importantOnly } = options;
  const loaded = await loadRoleConfig(role, {
    file,
    overrides,
    env,
    host: { ...detectHost(), homeDir: home },
  });
  return formatConfig(loaded.sections, { importantOnly });
}

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe("help", () => {
  for (const name of Object.keys(COMMANDS)) {
    test(`${name} --help prints its help and exits 0`, async () => {
      const spec = COMMANDS[name]?.spec;
      if (spec === undefined) throw new Error(name);
      expect(await cli([name, "--help"])).toEqual({ code: 0, stdout: `${formatHelp(spec)}\n`, stderr: "" });
    });
  }

  test("--help lists the subcommands; no subcommand prints it to stderr and exits 2", async () => {
    expect(await cli(["--help"])).toEqual({ code: 0, stdout: `${mainHelp()}\n`, stderr: "" });
    expect(await cli([])).toEqual({ code: 2, stdout: "", stderr: `${mainHelp()}\n` });
  });
});

describe("usage errors exit 2 and name the culprit", () => {
  const cases: ReadonlyArray<readonly [string[], string]> = [
    [["frobnicate"], "rocketbun: unknown subcommand 'frobnicate' (see rocketbun --help)"],
    [["namesrv", "--foo"], "rocketbun: unknown flag '--foo' for 'namesrv' (see rocketbun namesrv --help)"],
    [["broker", "-x"], "rocketbun: unknown flag '-x' for 'broker' (see rocketbun broker --help)"],
    [
      ["start", "--broker-port", "abc"],
      "rocketbun: invalid value 'abc' for flag '--broker-port': expected a port 1-65535 (see rocketbun start --help)",
    ],
    [
      ["start", "--namesrv-port=70000"],
      "rocketbun: invalid value '70000' for flag '--namesrv-port': expected a port 1-65535 (see rocketbun start --help)",
    ],
    [["gateway", "--port"], "rocketbun: flag '--port' needs a value (see rocketbun gateway --help)"],
    [["broker", "-p", "-m"], "rocketbun: use either -p or -m, not both (see rocketbun broker --help)"],
    [
      ["broker", "-n", "nohost", "-p"],
      `rocketbun: command line: namesrvAddr: "nohost" is not a list of host:port separated by ';' (bad part "nohost")`,
    ],
    [["admin", "nosuchverb"], "rocketbun: unknown admin verb 'nosuchverb' (see rocketbun admin --help)"],
  ];
  for (const [args, message] of cases) {
    test(args.join(" "), async () => {
      expect(await cli(args)).toEqual({ code: 2, stdout: "", stderr: `${message}\n` });
    });
  }
});

describe("-p and -m print the effective configuration", () => {
  test("namesrv -p prints every section with listenPort=9876", async () => {
    const result = await cli(["namesrv", "-p"]);
    expect(result).toEqual({ code: 0, stdout: await expectedPrint("namesrv"), stderr: "" });
    expect(result.stdout.split("\n")).toContain("listenPort=9876");
    expect(result.stdout.split("\n")).toContain(
      `kvConfigPath=${join(home, "rocketbun", "namesrv", "kvConfig.json")}`,
    );
  });

  test("broker -c FILE -p reflects the file", async () => {
    const conf = await file(
      "broker.conf",
      "brokerClusterName=DefaultCluster\nbrokerName=broker-a\nbrokerId=0\ndeleteWhen=04\nfileReservedTime=48\n" +
        "brokerRole=ASYNC_MASTER\nflushDiskType=SYNC_FLUSH\nlistenPort=10921\nnamesrvAddr=127.0.0.1:9876\n" +
        `storePathRootDir=${join(dir, "store")}\n`,
    );
    const result = await cli(["broker", "-c", conf, "-p"]);
    expect(result).toEqual({ code: 0, stdout: await expectedPrint("broker", { file: conf }), stderr: "" });
    const lines = result.stdout.split("\n");
    for (const line of [
      "brokerName=broker-a",
      "listenPort=10921",
      "flushDiskType=SYNC_FLUSH",
      "fileReservedTime=48",
    ]) {
      expect(lines).toContain(line);
    }
    expect(lines).toContain(`storePathCommitLog=${join(dir, "store", "commitlog")}`);
  });

  test("broker -m prints only the important keys; -n overrides the file", async () => {
    const result = await cli(["broker", "-m", "-n", "10.0.0.9:9876"]);
    const overrides = { namesrvAddr: "10.0.0.9:9876" };
    expect(result).toEqual({
      code: 0,
      stdout: await expectedPrint("broker", { overrides, importantOnly: true }),
      stderr: "",
    });
    expect(result.stdout.split("\n")).toContain("namesrvAddr=10.0.0.9:9876");
    expect(result.stdout.split("\n")).not.toContain("maxMessageSize=4194304");
  });

  test("start -p reflects --home and the port flags", async () => {
    const result = await cli([
      "start",
      "-p",
      "--home",
      join(dir, "rb"),
      "--broker-port=10931",
      "--gateway-port",
      "8081",
    ]);
    const lines = result.stdout.split("\n");
    expect(result.code).toEqual(0);
    for (const line of [
      "listenPort=10931",
      "gatewayPort=8081",
      "namesrvListenPort=9876",
      `rocketbunHome=${join(dir, "rb")}`,
      `storePathRootDir=${join(dir, "rb", "store")}`,
    ]) {
      expect(lines).toContain(line);
    }
  });

  test("gateway -p takes NAMESRV_ADDR and --port", async () => {
    const result = await cli(["gateway", "-p", "--port", "9090"], { NAMESRV_ADDR: "10.0.0.1:9876" });
    expect(
      result.stdout.split("\n").filter((l) => l.startsWith("gatewayPort") || l.startsWith("namesrvAddr")),
    ).toEqual(["gatewayPort=9090", "namesrvAddr=10.0.0.1:9876"]);
  });
});

describe("config errors exit 1 with the file, key and problem", () => {
  test("a bad value", async () => {
    const conf = await file("bad.conf", "brokerName=broker-a\nlistenPort=abc\n");
    expect(await cli(["broker", "-c", conf, "-p"])).toEqual({
      code: 1,
      stdout: "",
      stderr: `rocketbun: ${conf}:2: listenPort: "abc" is not an int\n`,
    });
  });

  test("an unknown key", async () => {
    const conf = await file("typo.properties", "listenPort=9876\nkvConfigPth=/x\n");
    expect(await cli(["namesrv", "-c", conf])).toEqual({
      code: 1,
      stdout: "",
      stderr: `rocketbun: ${conf}:2: kvConfigPth: unknown key (did you mean kvConfigPath?)\n`,
    });
  });

  test("a bad ROCKETBUN_LOG_LEVEL is a config error, not a crash, even when the role would run", async () => {
    const message =
      'rocketbun: environment variable ROCKETBUN_LOG_LEVEL: logLevel: "verbose" is not one of fatal, error, warn, info, debug, trace, silent\n';
    expect(await cli(["namesrv"], { ROCKETBUN_LOG_LEVEL: "verbose" })).toEqual({
      code: 1,
      stdout: "",
      stderr: message,
    });
  });

  test("a missing file and a bad environment variable", async () => {
    const missing = join(dir, "nope.conf");
    expect(await cli(["broker", "-c", missing])).toEqual({
      code: 1,
      stdout: "",
      stderr: `rocketbun: ${missing}: config file not found\n`,
    });
    expect(await cli(["broker", "-p"], { ROCKETBUN_BROKER_PORT: "high" })).toEqual({
      code: 1,
      stdout: "",
      stderr: 'rocketbun: environment variable ROCKETBUN_BROKER_PORT: listenPort: "high" is not an int\n',
    });
  });
});

describe("namesrv runs", () => {
  test("prints RocketMQ's boot line with its address, serves, and exits 0 on SIGTERM", async () => {
    const port = freePort();
    const proc = Bun.spawn([process.execPath, "src/cli/main.ts", "namesrv"], {
      cwd: repoRoot,
      env: { ...env, ROCKETBUN_NAMESRV_PORT: String(port) },
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = proc.stdout.getReader();
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    expect(out).toBe(`The Name Server boot success. serializeType=JSON, address 0.0.0.0:${port}\n`);
    const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
    socket.end();
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  });
});
