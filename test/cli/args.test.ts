import { describe, expect, test } from "bun:test";
import {
  type CommandSpec,
  formatHelp,
  noPositionals,
  parseArgs,
  portFlag,
  textFlag,
  UsageError,
} from "../../src/cli/args.ts";

const spec: CommandSpec = {
  name: "demo",
  usage: "rocketbun demo [-c FILE] [-p]",
  summary: "A demo command.",
  flags: [
    { long: "config", short: "c", aliases: ["configFile"], value: "FILE", help: "config file" },
    { long: "print-config", short: "p", help: "print" },
    { long: "broker-port", value: "N", help: "port" },
  ],
  notes: "Notes here.",
};

const parsed = (argv: string[]) => {
  const args = parseArgs(spec, argv);
  return { flags: Object.fromEntries(args.flags), positionals: args.positionals };
};

function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof UsageError) return e.message;
    throw e;
  }
  throw new Error("expected a UsageError");
}

describe("parseArgs", () => {
  test("long flags take --x=v or --x v; aliases map to the long name", () => {
    expect(parsed(["--config=a.conf", "--broker-port", "10911"])).toEqual({
      flags: { config: "a.conf", "broker-port": "10911" },
      positionals: [],
    });
    expect(parsed(["--configFile", "b.conf"])).toEqual({ flags: { config: "b.conf" }, positionals: [] });
  });

  test("short flags take -c v or -cv; switches bundle; -h may repeat", () => {
    expect(parsed(["-c", "a.conf", "-p"])).toEqual({
      flags: { config: "a.conf", "print-config": "true" },
      positionals: [],
    });
    expect(parsed(["-ca.conf"])).toEqual({ flags: { config: "a.conf" }, positionals: [] });
    expect(parsed(["-ph", "-h", "--help"])).toEqual({
      flags: { "print-config": "true", help: "true" },
      positionals: [],
    });
    expect(parsed(["-pcx.conf"])).toEqual({
      flags: { "print-config": "true", config: "x.conf" },
      positionals: [],
    });
  });

  test("a repeated value flag keeps the last value; -- ends the flags", () => {
    expect(parsed(["-c", "1", "--config", "2", "--", "-p", "x"])).toEqual({
      flags: { config: "2" },
      positionals: ["-p", "x"],
    });
  });

  test("unknown flags are named with the command and where to look", () => {
    expect(usageError(() => parseArgs(spec, ["--foo"]))).toEqual(
      "unknown flag '--foo' for 'demo' (see rocketbun demo --help)",
    );
    expect(usageError(() => parseArgs(spec, ["--foo=1"]))).toEqual(
      "unknown flag '--foo' for 'demo' (see rocketbun demo --help)",
    );
    expect(usageError(() => parseArgs(spec, ["-pz"]))).toEqual(
      "unknown flag '-z' for 'demo' (see rocketbun demo --help)",
    );
  });

  test("a missing value, or a value given to a switch, is a usage error naming the flag", () => {
    expect(usageError(() => parseArgs(spec, ["--config"]))).toEqual(
      "flag '--config' needs a value (see rocketbun demo --help)",
    );
    expect(usageError(() => parseArgs(spec, ["-c"]))).toEqual(
      "flag '-c' needs a value (see rocketbun demo --help)",
    );
    expect(usageError(() => parseArgs(spec, ["--print-config=yes"]))).toEqual(
      "flag '--print-config' takes no value (see rocketbun demo --help)",
    );
  });

  test("passThroughAfterPositional keeps a verb's own flags verbatim", () => {
    const admin: CommandSpec = { ...spec, name: "admin", passThroughAfterPositional: true };
    expect(parseArgs(admin, ["topicList", "-n", "h:1", "--foo"]).positionals).toEqual([
      "topicList",
      "-n",
      "h:1",
      "--foo",
    ]);
  });
});

describe("flag values", () => {
  test("ports are integers 1..65535", () => {
    const port = (v: string) => portFlag(spec, parseArgs(spec, ["--broker-port", v]), "broker-port");
    expect([port("1"), port("10911"), port("65535")]).toEqual([1, 10911, 65535]);
    for (const bad of ["abc", "0", "65536", "-1", "1.5", "", "123456"]) {
      expect(usageError(() => port(bad))).toEqual(
        `invalid value '${bad}' for flag '--broker-port': expected a port 1-65535 (see rocketbun demo --help)`,
      );
    }
    expect(portFlag(spec, parseArgs(spec, []), "broker-port")).toBeUndefined();
  });

  test("an empty text value and a stray positional are usage errors", () => {
    expect(usageError(() => textFlag(spec, parseArgs(spec, ["-c", ""]), "config"))).toEqual(
      "empty value for flag '--config' (see rocketbun demo --help)",
    );
    expect(usageError(() => noPositionals(spec, parseArgs(spec, ["extra"])))).toEqual(
      "unexpected argument 'extra' for 'demo' (see rocketbun demo --help)",
    );
  });
});

test("help lists every flag, its aliases and the notes", () => {
  expect(formatHelp(spec)).toEqual(
    [
      "Usage: rocketbun demo [-c FILE] [-p]",
      "",
      "A demo command.",
      "",
      "Options:",
      "  -c, --config FILE    config file",
      "                       (also --configFile)",
      "  -p, --print-config   print",
      "      --broker-port N  port",
      "  -h, --help           show this help and exit",
      "",
      "Notes here.",
    ].join("\n"),
  );
});
