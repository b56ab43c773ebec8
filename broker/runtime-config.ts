/**
 * What UPDATE_BROKER_CONFIG may change while the broker runs: the keys the broker reads on every
 * request (so a new value takes effect at once), each checked against the config schema. Every
 * other key is named as unknown (with the nearest known key) or as needing a restart, instead of
 * Java's silent acceptance of a value that only the next start would read.
 */
import { brokerConfig } from "../src/config/broker-config.ts";
import { messageStoreConfig } from "../src/config/message-store-config.ts";
import { nettyClientConfig, nettyServerConfig } from "../src/config/netty-config.ts";
import { rocketbunBrokerConfig, rocketbunConfig } from "../src/config/rocketbun-config.ts";
import { claims, convertValue, type Fields, type Section } from "../src/config/schema.ts";
import { suggestKey } from "../src/config/suggest.ts";

/** Run-time keys and the section that declares each. */
export const RUNTIME_KEYS: Readonly<Record<string, "broker" | "store">> = {
  brokerPermission: "broker",
  autoCreateSubscriptionGroup: "broker",
  enablePropertyFilter: "broker",
  longPollingEnable: "broker",
  shortPollingTimeMills: "broker",
  recallMessageEnable: "broker",
  defaultQueryMaxNum: "store",
  maxMsgsNumBatch: "store",
  maxTransferBytesOnMessageInMemory: "store",
  maxTransferCountOnMessageInMemory: "store",
  timerMaxDelaySec: "store",
};

const SECTIONS: readonly Section[] = [
  brokerConfig,
  messageStoreConfig,
  nettyServerConfig,
  nettyClientConfig,
  rocketbunConfig,
  rocketbunBrokerConfig,
];

export type RuntimeChange = { key: string; section: "broker" | "store"; value: unknown };

/** A change the broker refuses, with what to tell the admin. */
export interface RuntimeRefusal {
  kind: "unknown" | "restart" | "invalid";
  message: string;
}

/** Checks one `key=value`; a RuntimeChange to apply, or why not. */
export function checkRuntimeChange(key: string, raw: string): RuntimeChange | RuntimeRefusal {
  const section = RUNTIME_KEYS[key];
  if (section === undefined) {
    if (!SECTIONS.some((s) => claims(s, key)))
      return { kind: "unknown", message: `unknown config key '${key}'${suggestKey(key, SECTIONS)}` };
    return {
      kind: "restart",
      message: `'${key}' cannot be changed at run time: set it in the broker's config file and restart (changeable at run time: ${Object.keys(RUNTIME_KEYS).join(", ")})`,
    };
  }
  const fields: Fields = section === "broker" ? brokerConfig.fields : messageStoreConfig.fields;
  const field = fields[key];
  const converted = field ? convertValue(field, raw) : { problem: `no schema for ${key}` };
  if ("problem" in converted) return { kind: "invalid", message: `${key}: ${converted.problem}` };
  return { key, section, value: converted.value };
}
