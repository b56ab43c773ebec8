/**
 * Loads one role's configuration: defaults, environment, `.properties` file and command-line
 * overrides, validated into frozen typed sections. The only module that reads `process.env`.
 */
import { accessSync, constants, type Stats, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { authConfig, namesrvAclConfig } from "./acl-config.ts";
import {
  brokerConfig,
  brokerConfigPathUnder,
  DEFAULT_BROKER_NAME,
  DEFAULT_BROKER_PORT,
} from "./broker-config.ts";
import { ConfigError, type ConfigProblem } from "./errors.ts";
import { gatewayConfig } from "./gateway-config.ts";
import { detectHost, type HostFacts } from "./host.ts";
import { messageStoreConfig, storePathRootDirUnder } from "./message-store-config.ts";
import {
  configStorePathUnder,
  DEFAULT_NAMESRV_PORT,
  kvConfigPathUnder,
  namesrvConfig,
} from "./namesrv-config.ts";
import { nettyClientConfig, nettyServerConfig } from "./netty-config.ts";
import { type PropertyEntry, parsePropertyEntries } from "./properties.ts";
import { rocketbunBrokerConfig, rocketbunConfig, startConfig } from "./rocketbun-config.ts";
import {
  type BrokerRoleConfig,
  type GatewayRoleConfig,
  type NamesrvRoleConfig,
  ROLE_SECTIONS,
  type RoleConfigs,
  type RoleName,
} from "./role-config.ts";
import { BROKER_PATH_KEYS, NAMESRV_PATH_KEYS } from "./runtime-changes.ts";
import { NO_RUNTIME, type RuntimeLayers, readRuntimeLayer, type Sourced } from "./runtime-layer.ts";
import {
  claims,
  defaultsOf,
  type Fields,
  type Section,
  type SectionValues,
  validateSection,
} from "./schema.ts";
import { suggestKey } from "./suggest.ts";
import { tlsConfig } from "./tls-config.ts";

export interface LoadOptions {
  /** A Java `.properties` file (`-c`). */
  readonly file?: string;
  /** Property-name overrides from command-line flags; they win over everything. */
  readonly overrides?: Readonly<Record<string, string>>;
  /** Defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Defaults to this machine's facts. */
  readonly host?: HostFacts;
}

/** One section with its effective values, for `-p` printing. */
export interface PrintableSection {
  readonly section: Section;
  readonly values: Readonly<Record<string, unknown>>;
}

export interface LoadedConfig<R extends RoleName> {
  readonly role: R;
  readonly config: RoleConfigs[R];
  /** Every section of the role with its values, in `-p` order. */
  readonly sections: readonly PrintableSection[];
  readonly file: string | undefined;
  /** Java keys present in the input that RocketBun accepts and ignores. */
  readonly ignoredKeys: readonly string[];
}

/** Java's variables keep Java's meaning: a default that the file overrides. */
const JAVA_ENV: Readonly<Record<string, string>> = {
  NAMESRV_ADDR: "namesrvAddr",
  ROCKETMQ_HOME: "rocketmqHome",
};

const COMMON_ENV = {
  ROCKETBUN_HOME: "rocketbunHome",
  ROCKETBUN_LOG_LEVEL: "logLevel",
  ROCKETBUN_LOG_FORMAT: "logFormat",
  ROCKETBUN_LOG_DIR: "logDir",
} as const;

/** RocketBun's variables override the file (deployment beats the shipped file); flags beat both. */
const ROCKETBUN_ENV: { readonly [R in RoleName]: Readonly<Record<string, string>> } = {
  namesrv: { ...COMMON_ENV, ROCKETBUN_NAMESRV_PORT: "listenPort" },
  broker: { ...COMMON_ENV, ROCKETBUN_BROKER_PORT: "listenPort" },
  gateway: { ...COMMON_ENV, ROCKETBUN_GATEWAY_PORT: "gatewayPort" },
  start: {
    ...COMMON_ENV,
    ROCKETBUN_NAMESRV_PORT: "namesrvListenPort",
    ROCKETBUN_BROKER_PORT: "listenPort",
    ROCKETBUN_GATEWAY_PORT: "gatewayPort",
  },
};

function describeReadError(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return "config file not found";
  if (code === "EISDIR") return "is a directory, not a config file";
  if (code === "EACCES" || code === "EPERM") return "config file is not readable (permission denied)";
  return `cannot read config file: ${err instanceof Error ? err.message : String(err)}`;
}

/** Reads a `.properties` file as UTF-8, falling back to ISO-8859-1 (what Java's Properties reads). */
export async function readConfigFile(file: string): Promise<PropertyEntry[]> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new ConfigError([{ origin: file, message: describeReadError(err) }], { cause: err });
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    text = new TextDecoder("latin1").decode(bytes);
  }
  return parsePropertyEntries(text, file);
}

/**
 * The input layers: `below` the run-time changes (Java's variables, the file) and `above` them
 * (ROCKETBUN_* variables, command-line overrides).
 */
interface Layers {
  readonly below: ReadonlyMap<string, Sourced>;
  readonly above: ReadonlyMap<string, Sourced>;
  /** Keys no section claims: reported with the values' problems, in one pass. */
  readonly unknown: readonly ConfigProblem[];
}

/** Reads the input layers; reports keys no section of the role claims. */
async function gatherEntries(role: RoleName, options: LoadOptions): Promise<Layers> {
  const sections = ROLE_SECTIONS[role];
  const claimed = (key: string) => sections.some((s) => claims(s, key));
  const env = options.env ?? process.env;
  const below = new Map<string, Sourced>();
  const above = new Map<string, Sourced>();
  const unknown: ConfigProblem[] = [];
  const put = (layer: Map<string, Sourced>, key: string, value: string, origin: string, strict: boolean) => {
    if (claimed(key)) layer.set(key, { value, origin });
    else if (strict) unknown.push({ origin, key, message: `unknown key${suggestKey(key, sections)}` });
  };

  for (const [name, key] of Object.entries(JAVA_ENV)) {
    const value = env[name];
    // Inside `start` the broker and gateway talk to the embedded NameServer, not to NAMESRV_ADDR.
    if (value && !(role === "start" && name === "NAMESRV_ADDR")) {
      put(below, key, value, `environment variable ${name}`, false);
    }
  }
  if (options.file !== undefined) {
    for (const e of await readConfigFile(options.file))
      put(below, e.key, e.value, `${options.file}:${e.line}`, true);
  }
  for (const [name, key] of Object.entries(ROCKETBUN_ENV[role])) {
    const value = env[name];
    if (value) put(above, key, value, `environment variable ${name}`, true);
  }
  for (const [key, value] of Object.entries(options.overrides ?? {}))
    put(above, key, value, "command line", true);

  return { below, above, unknown };
}

function layered(layers: Layers, runtime: ReadonlyMap<string, Sourced> = new Map()): Map<string, Sourced> {
  return new Map([...layers.below, ...runtime, ...layers.above]);
}

/** The problems of one load, each reported once. */
class Problems {
  readonly list: ConfigProblem[] = [];
  // Sections shared by several roles of `start` are validated more than once; report once.
  private readonly reported = new Set<string>();

  report(problem: ConfigProblem): void {
    const id = `${problem.origin}\0${problem.key}\0${problem.message}`;
    if (this.reported.has(id)) return;
    this.reported.add(id);
    this.list.push(problem);
  }
}

/** Validates sections against one set of entries, collecting every problem before throwing. */
class Validator {
  readonly values = new Map<Section, Readonly<Record<string, unknown>>>();
  private readonly raw: ReadonlyMap<string, string>;

  constructor(
    private readonly entries: ReadonlyMap<string, Sourced>,
    private readonly problems: Problems,
  ) {
    this.raw = new Map([...entries].map(([k, s]) => [k, s.value]));
  }

  report(problem: ConfigProblem): void {
    this.problems.report(problem);
  }

  origin(key: string): string | undefined {
    return this.entries.get(key)?.origin;
  }

  /** The trimmed input value of a key, when given. */
  given(key: string): string | undefined {
    return this.raw.get(key)?.trim();
  }

  section<F extends Fields>(section: Section<F>, defaults: Partial<SectionValues<F>> = {}): SectionValues<F> {
    const result = validateSection(section, this.raw, defaults, (k) => this.origin(k));
    // On failure, continue with defaults so that later sections report their problems too.
    const values = result.ok ? result.values : defaultsOf(section);
    if (!result.ok) for (const p of result.problems) this.report(p);
    this.values.set(section, values);
    return values;
  }
}

/** The directory under the user's home that holds every role's data by default. */
export const HOME_DIR_NAME = "rocketbun";

function bindDefault(host: HostFacts): { bindAddress?: string } {
  return host.bindAddress === undefined ? {} : { bindAddress: host.bindAddress };
}

export function isWildcard(address: string): boolean {
  return address === "0.0.0.0" || address === "::" || address === "";
}

/**
 * rocketbunHome must be a directory, or creatable: named here, with the path that is in the way,
 * rather than as an ENOTDIR from deep inside the store later.
 */
function checkHome(v: Validator, home: string): void {
  const problem = homeProblem(resolve(home));
  if (problem !== undefined)
    v.report({ origin: v.origin("rocketbunHome"), key: "rocketbunHome", message: problem });
}

function homeProblem(home: string): string | undefined {
  let path = home;
  for (;;) {
    let stat: Stats;
    try {
      stat = statSync(path);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if ((code === "ENOENT" || code === "ENOTDIR") && dirname(path) !== path) {
        path = dirname(path);
        continue;
      }
      return `${home} cannot be used: ${(err as Error).message}`;
    }
    if (!stat.isDirectory()) {
      return path === home
        ? `${home} is not a directory`
        : `${home} cannot be created: ${path} is not a directory`;
    }
    if (path === home) return undefined;
    try {
      accessSync(path, constants.W_OK);
      return undefined;
    } catch {
      return `${home} cannot be created: no permission to write in ${path}`;
    }
  }
}

function haPortFor(listenPort: number): number {
  return listenPort > 0 && listenPort < 65535 ? listenPort + 1 : 0;
}

const SAME_AS_FILE =
  "names the -c file; run-time changes are kept in a file of the role's own, never in the operator's file";

/** A path key the operator set to the `-c` file itself. */
function checkNotTheFile(v: Validator, key: string, path: string, file: string | undefined): void {
  if (file !== undefined && resolve(path) === resolve(file)) {
    v.report({ origin: v.origin(key), key, message: SAME_AS_FILE });
  }
}

/** `embeddedPort`: inside `start`, the NameServer's port, which the broker's listenPort must not set. */
function buildNamesrv(
  v: Validator,
  host: HostFacts,
  file: string | undefined,
  runtimeChanges: ReadonlyMap<string, string>,
  embeddedPort?: number,
): NamesrvRoleConfig {
  const rocketbun = v.section(rocketbunConfig, { rocketbunHome: host.homeDir });
  const home = rocketbun.rocketbunHome;
  const namesrv = v.section(namesrvConfig, {
    kvConfigPath: kvConfigPathUnder(home),
    configStorePath: configStorePathUnder(home),
  });
  checkNotTheFile(v, "configStorePath", namesrv.configStorePath, file);
  let nettyServer = v.section(nettyServerConfig, {
    listenPort: DEFAULT_NAMESRV_PORT,
    ...bindDefault(host),
  });
  if (embeddedPort !== undefined) nettyServer = Object.freeze({ ...nettyServer, listenPort: embeddedPort });
  const [nettyClient, tls] = [v.section(nettyClientConfig), v.section(tlsConfig)];
  const acl = v.section(namesrvAclConfig);
  return Object.freeze({ rocketbun, namesrv, nettyServer, nettyClient, acl, tls, runtimeChanges });
}

function buildBroker(
  v: Validator,
  host: HostFacts,
  file: string | undefined,
  runtimeChanges: ReadonlyMap<string, string>,
  namesrvAddr?: string,
): BrokerRoleConfig {
  const rocketbun = v.section(rocketbunConfig, { rocketbunHome: host.homeDir });
  const nettyServer = v.section(nettyServerConfig, { listenPort: DEFAULT_BROKER_PORT, ...bindDefault(host) });
  // A broker bound to one address is reachable only there: publish that, not another interface.
  const published = isWildcard(nettyServer.bindAddress) ? host.localAddress : nettyServer.bindAddress;
  const root = v.given("storePathRootDir") ?? storePathRootDirUnder(rocketbun.rocketbunHome);
  const messageStore = v.section(messageStoreConfig, {
    storePathRootDir: root,
    storePathCommitLog: join(root, "commitlog"),
    haListenPort: haPortFor(nettyServer.listenPort),
  });
  let broker = v.section(brokerConfig, {
    brokerName: host.hostName || DEFAULT_BROKER_NAME,
    brokerIP1: published,
    brokerIP2: published,
    brokerConfigPath: brokerConfigPathUnder(root),
    ...(namesrvAddr === undefined ? {} : { namesrvAddr }),
  });
  checkNotTheFile(v, "brokerConfigPath", broker.brokerConfigPath, file);
  // Java's BrokerStartup: a master is always id 0; a slave must say which slave it is.
  if (messageStore.brokerRole === "SLAVE" && broker.brokerId <= 0) {
    const origin = v.origin("brokerId") ?? v.origin("brokerRole");
    v.report({ origin, key: "brokerId", message: "a SLAVE needs brokerId > 0" });
  } else if (messageStore.brokerRole !== "SLAVE" && broker.brokerId !== 0) {
    broker = Object.freeze({ ...broker, brokerId: 0 });
    v.values.set(brokerConfig, broker);
  }
  const limits = v.section(rocketbunBrokerConfig);
  const auth = v.section(authConfig);
  const [nettyClient, tls] = [v.section(nettyClientConfig), v.section(tlsConfig)];
  return Object.freeze({
    rocketbun,
    broker,
    messageStore,
    limits,
    auth,
    nettyServer,
    nettyClient,
    tls,
    runtimeChanges,
  });
}

function buildGateway(v: Validator, host: HostFacts, namesrvAddr?: string): GatewayRoleConfig {
  const rocketbun = v.section(rocketbunConfig, { rocketbunHome: host.homeDir });
  const gateway = v.section(gatewayConfig, {
    ...(namesrvAddr === undefined ? {} : { namesrvAddr }),
    ...(host.bindAddress === undefined ? {} : { gatewayBindAddress: host.bindAddress }),
  });
  const nettyClient = v.section(nettyClientConfig);
  return Object.freeze({ rocketbun, gateway, nettyClient, tls: v.section(tlsConfig) });
}

interface Built {
  readonly config: RoleConfigs[RoleName];
  /** Each section's values, for `-p`. */
  readonly values: ReadonlyMap<Section, Readonly<Record<string, unknown>>>;
}

/**
 * Validates and builds the role. Under `start` the NameServer sees its own run-time changes and
 * the broker (with the gateway) its own, each over the same file.
 */
function build(
  role: RoleName,
  layers: Layers,
  runtime: RuntimeLayers,
  host: HostFacts,
  file: string | undefined,
): Built {
  const problems = new Problems();
  for (const p of layers.unknown) problems.report(p);
  // Every role keeps its data under ~/rocketbun unless --home (rocketbunHome) says otherwise.
  host = { ...host, homeDir: join(host.homeDir, HOME_DIR_NAME) };
  const own = new Validator(
    layered(layers, role === "namesrv" ? runtime.namesrv.entries : runtime.broker.entries),
    problems,
  );
  const done = (config: RoleConfigs[RoleName], values = own.values): Built => {
    checkHome(own, config.rocketbun.rocketbunHome);
    if (problems.list.length > 0) throw new ConfigError(problems.list);
    return { config, values };
  };
  switch (role) {
    case "namesrv":
      return done(buildNamesrv(own, host, file, runtime.namesrv.changes));
    case "broker":
      return done(buildBroker(own, host, file, runtime.broker.changes));
    case "gateway":
      return done(buildGateway(own, host));
    case "start": {
      // The all-in-one server is a single-machine setup: it listens on and advertises loopback
      // unless bindAddress (or --bind) and brokerIP1 say otherwise.
      host = { ...host, localAddress: "127.0.0.1", bindAddress: "127.0.0.1" };
      const start = own.section(startConfig);
      const local = `127.0.0.1:${start.namesrvListenPort}`;
      const ns = new Validator(layered(layers, runtime.namesrv.entries), problems);
      const namesrv = buildNamesrv(ns, host, file, runtime.namesrv.changes, start.namesrvListenPort);
      const gateway = buildGateway(own, host, local);
      // Built last so that the printed nettyServerConfig is the broker's.
      const broker = buildBroker(own, host, file, runtime.broker.changes, local);
      if (resolve(namesrv.namesrv.configStorePath) === resolve(broker.broker.brokerConfigPath)) {
        own.report({
          origin: own.origin("brokerConfigPath") ?? own.origin("configStorePath"),
          key: "brokerConfigPath",
          message: "is also configStorePath; the NameServer and the broker each need a file of their own",
        });
      }
      const values = new Map(own.values);
      values.set(namesrvConfig, ns.values.get(namesrvConfig) ?? defaultsOf(namesrvConfig));
      values.set(namesrvAclConfig, ns.values.get(namesrvAclConfig) ?? defaultsOf(namesrvAclConfig));
      return done(Object.freeze({ rocketbun: broker.rocketbun, start, namesrv, broker, gateway }), values);
    }
  }
}

/** Where the role's run-time changes live, as the first build found. */
function runtimePaths(role: RoleName, config: RoleConfigs[RoleName]): { namesrv?: string; broker?: string } {
  switch (role) {
    case "namesrv":
      return { namesrv: (config as NamesrvRoleConfig).namesrv.configStorePath };
    case "broker":
      return { broker: (config as BrokerRoleConfig).broker.brokerConfigPath };
    case "gateway":
      return {};
    case "start": {
      const c = config as RoleConfigs["start"];
      return { namesrv: c.namesrv.namesrv.configStorePath, broker: c.broker.broker.brokerConfigPath };
    }
  }
}

/**
 * Loads a role's configuration. Precedence, lowest first: defaults, NAMESRV_ADDR / ROCKETMQ_HOME,
 * the file, the role's run-time changes (configStorePath, brokerConfigPath), ROCKETBUN_* variables,
 * `overrides`. Throws ConfigError naming origin, key and problem.
 */
export async function loadRoleConfig<R extends RoleName>(
  role: R,
  options: LoadOptions = {},
): Promise<LoadedConfig<R>> {
  const layers = await gatherEntries(role, options);
  const host = options.host ?? detectHost();
  // The first build finds where the run-time changes live. They may not name a path key, so the
  // second build, with them applied, finds the same places.
  const first = build(role, layers, NO_RUNTIME, host, options.file);
  const paths = runtimePaths(role, first.config);
  const runtime: RuntimeLayers = {
    namesrv: await readRuntimeLayer(paths.namesrv, ROLE_SECTIONS.namesrv, NAMESRV_PATH_KEYS, readConfigFile),
    broker: await readRuntimeLayer(paths.broker, ROLE_SECTIONS.broker, BROKER_PATH_KEYS, readConfigFile),
  };
  const changed = runtime.namesrv.changes.size > 0 || runtime.broker.changes.size > 0;
  const { config, values } = changed ? build(role, layers, runtime, host, options.file) : first;

  const sections = ROLE_SECTIONS[role];
  const ignoredKeys = [...layered(layers).keys()]
    .filter((k) => !sections.some((s) => Object.hasOwn(s.fields, k)))
    .sort();
  return Object.freeze({
    role,
    config: config as RoleConfigs[R],
    sections: sections.map((section) => ({ section, values: values.get(section) ?? defaultsOf(section) })),
    file: options.file,
    ignoredKeys,
  });
}
