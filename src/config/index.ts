/**
 * Public surface of the config package: role loading, the section tables and their types, the
 * `.properties` codec and `-p` printing.
 */
export * from "./acl-config.ts";
export * from "./broker-config.ts";
export { ConfigError, type ConfigProblem } from "./errors.ts";
export * from "./gateway-config.ts";
export type { HostFacts } from "./host.ts";
export { type LoadedConfig, type LoadOptions, loadRoleConfig, type PrintableSection } from "./load.ts";
export * from "./message-store-config.ts";
export * from "./namesrv-config.ts";
export * from "./netty-config.ts";
export { formatConfig } from "./print.ts";
export { parseProperties, stringifyProperties } from "./properties.ts";
export * from "./rocketbun-config.ts";
export * from "./role-config.ts";
export { type ConfigOf, defaultsOf, parseSection, type Section, type SectionValues } from "./schema.ts";
export * from "./tls-config.ts";
