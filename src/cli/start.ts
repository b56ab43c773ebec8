/**
 * `rocketbun start`: NameServer, Broker and Gateway in one process (the embedded default), started in
 * that order and stopped in reverse on SIGINT/SIGTERM.
 */
import { loadRoleConfig } from "../config/load.ts";
import { formatConfig } from "../config/print.ts";
import type { StartRoleConfig } from "../config/role-config.ts";
import { type CommandSpec, formatHelp, noPositionals, parseArgs, portFlag, textFlag } from "./args.ts";
import {
  type CliIo,
  CONFIG_FLAG,
  type Command,
  EXIT_FAILURE,
  EXIT_OK,
  envNotes,
  PRINT_FLAG,
  processHost,
  ROLE_FLAGS,
  roleFlagOverrides,
  startLogging,
} from "./command.ts";
import { type RoleStep, runRoles } from "./lifecycle.ts";
import {
  openSharedAcl,
  ROLE_TITLES,
  type RoleStarter,
  type RoleStarters,
  roleStarters,
  type Shared,
  sharedAcl,
} from "./roles.ts";
import { loadWithTlsDev, TLS_DEV_FLAG } from "./tls-dev.ts";

const spec: CommandSpec = {
  name: "start",
  usage:
    "rocketbun start [--home DIR] [--bind ADDR] [--namesrv-port N] [--broker-port N] [--gateway-port N] [--tls-dev] [--log-format FMT] [--log-dir DIR] [-c FILE] [-p]",
  summary:
    "Runs NameServer (9876), Broker (10911) and Gateway (8080) in one process. The file takes broker.conf\n" +
    "keys (listenPort is the broker's), NamesrvConfig keys, gatewayPort and namesrvListenPort; one\n" +
    "aclEnable=true checks ACL at the broker and the NameServer, with one aclPlainFile. Run-time\n" +
    "changes go (by default) to <home>/namesrv/namesrv-runtime.properties and\n" +
    "<home>/store/config/broker-runtime.properties, never to the file.",
  flags: [
    ...ROLE_FLAGS,
    {
      long: "bind",
      value: "ADDR",
      help: "address every server listens on (default 127.0.0.1; 0.0.0.0 for every interface)",
    },
    { long: "namesrv-port", value: "N", help: "NameServer port (default 9876)" },
    { long: "broker-port", value: "N", help: "Broker port (default 10911)" },
    { long: "gateway-port", value: "N", help: "Gateway HTTP port (default 8080)" },
    TLS_DEV_FLAG,
    CONFIG_FLAG,
    PRINT_FLAG,
  ],
  notes: envNotes([
    "ROCKETBUN_HOME",
    "ROCKETBUN_NAMESRV_PORT",
    "ROCKETBUN_BROKER_PORT",
    "ROCKETBUN_GATEWAY_PORT",
    "ROCKETBUN_LOG_LEVEL",
  ]),
};

/** The roles of `start` in start order, each with its slice of the configuration. */
export function startSteps(
  starters: RoleStarters,
  config: StartRoleConfig,
): { steps: RoleStep[]; missing: string[] } {
  const steps: RoleStep[] = [];
  const missing: string[] = [];
  const acl = sharedAcl(config);
  if (acl) steps.push({ title: "ACL", start: () => openSharedAcl(acl) });
  const shared: Shared = { acl };
  const add = <C>(title: string, starter: RoleStarter<C> | undefined, slice: C) => {
    if (starter === undefined) missing.push(title);
    else steps.push({ title, start: () => starter(slice, shared) });
  };
  add(ROLE_TITLES.namesrv, starters.namesrv, config.namesrv);
  add(ROLE_TITLES.broker, starters.broker, config.broker);
  add(ROLE_TITLES.gateway, starters.gateway, config.gateway);
  return { steps, missing };
}

function overridesFrom(args: ReturnType<typeof parseArgs>): Record<string, string> {
  const overrides = roleFlagOverrides(spec, args);
  const bind = textFlag(spec, args, "bind");
  if (bind !== undefined) {
    overrides.bindAddress = bind;
    overrides.gatewayBindAddress = bind;
  }
  const ports = [
    ["namesrv-port", "namesrvListenPort"],
    ["broker-port", "listenPort"],
    ["gateway-port", "gatewayPort"],
  ] as const;
  for (const [flag, key] of ports) {
    const port = portFlag(spec, args, flag);
    if (port !== undefined) overrides[key] = String(port);
  }
  return overrides;
}

async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(spec, argv);
  if (args.flags.has("help")) {
    io.out(formatHelp(spec));
    return EXIT_OK;
  }
  noPositionals(spec, args);
  const overrides = overridesFrom(args);
  const file = textFlag(spec, args, "config");
  const load = (o: Record<string, string>) => loadRoleConfig("start", { file, overrides: o });
  const loaded = args.flags.has("tls-dev")
    ? await loadWithTlsDev(load, overrides, io, !args.flags.has("print-config"))
    : await load(overrides);
  if (args.flags.has("print-config")) {
    io.out(formatConfig(loaded.sections));
    return EXIT_OK;
  }
  const { steps, missing } = startSteps(roleStarters, loaded.config);
  if (steps.length === 0) {
    io.err(
      "rocketbun: no roles are available in this build yet; NameServer, Broker and Gateway plug into src/cli/roles.ts",
    );
    return EXIT_FAILURE;
  }
  if (missing.length > 0)
    io.err(`rocketbun: not available in this build, not started: ${missing.join(", ")}`);
  return runRoles(steps, processHost(await startLogging(loaded), io));
}

export const startCommand: Command = { spec, run };
