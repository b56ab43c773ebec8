/**
 * TopicConfig and TopicConfigSerializeWrapper (spec remoting §7.7): what a broker registers.
 * TopicConfig also has a one-line text form used inside compressed registrations:
 * `<topicName> <readQ> <writeQ> <perm> <topicFilterType>[ <attributesJSON>]`.
 */
import {
  asBool,
  asInt,
  asObject,
  asObjectOrEmpty,
  asOptionalString,
  asString,
  BodyShapeError,
  type JsonValue,
  parseJson,
} from "../json/index.ts";
import { type DataVersion, newDataVersion, readDataVersion } from "./data-version.ts";
import { DEFAULT_PERM } from "./perm.ts";
import { readTopicQueueMappingInfo, type TopicQueueMappingInfo } from "./topic-route-data.ts";

export const TOPIC_FILTER_TYPES = ["SINGLE_TAG", "MULTI_TAG"] as const;
export type TopicFilterType = (typeof TOPIC_FILTER_TYPES)[number];
export const DEFAULT_FILTER_TYPE: TopicFilterType = "SINGLE_TAG";

export function isTopicFilterType(s: string): s is TopicFilterType {
  return (TOPIC_FILTER_TYPES as readonly string[]).includes(s);
}

export interface TopicConfig {
  topicName: string;
  readQueueNums: number;
  writeQueueNums: number;
  perm: number;
  topicFilterType: TopicFilterType;
  topicSysFlag: number;
  order: boolean;
  attributes: Record<string, string>;
}

/** Java's TopicConfig.defaultReadQueueNums / defaultWriteQueueNums. */
export const DEFAULT_TOPIC_QUEUE_NUMS = 16;

export function topicConfig(
  topicName: string,
  init: Partial<Omit<TopicConfig, "topicName">> = {},
): TopicConfig {
  return {
    topicName,
    readQueueNums: DEFAULT_TOPIC_QUEUE_NUMS,
    writeQueueNums: DEFAULT_TOPIC_QUEUE_NUMS,
    perm: DEFAULT_PERM,
    topicFilterType: "SINGLE_TAG",
    topicSysFlag: 0,
    order: false,
    attributes: {},
    ...init,
  };
}

export interface TopicConfigSerializeWrapper {
  topicConfigTable: Map<string, TopicConfig>;
  dataVersion: DataVersion;
  /** 5.x TopicConfigAndMappingSerializeWrapper: topic → static-topic mapping. */
  topicQueueMappingInfoMap: Map<string, TopicQueueMappingInfo>;
}

function readFilterType(v: JsonValue | undefined, path: string): TopicFilterType {
  const s = asOptionalString(v, path) ?? DEFAULT_FILTER_TYPE;
  if (!isTopicFilterType(s)) throw new BodyShapeError(`${path}: unknown filter type ${s}`);
  return s;
}

function readAttributes(v: JsonValue | undefined, path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, a] of Object.entries(asObjectOrEmpty(v, path))) out[k] = asString(a, `${path}.${k}`);
  return out;
}

export function readTopicConfig(v: JsonValue, path: string, nameFallback?: string): TopicConfig {
  const o = asObject(v, path);
  const name = asOptionalString(o.topicName, `${path}.topicName`) ?? nameFallback;
  if (name === undefined) throw new BodyShapeError(`${path}.topicName: missing`);
  return {
    topicName: name,
    readQueueNums: asInt(o.readQueueNums, `${path}.readQueueNums`, DEFAULT_TOPIC_QUEUE_NUMS),
    writeQueueNums: asInt(o.writeQueueNums, `${path}.writeQueueNums`, DEFAULT_TOPIC_QUEUE_NUMS),
    perm: asInt(o.perm, `${path}.perm`, DEFAULT_PERM),
    topicFilterType: readFilterType(o.topicFilterType, `${path}.topicFilterType`),
    topicSysFlag: asInt(o.topicSysFlag, `${path}.topicSysFlag`, 0),
    order: asBool(o.order, `${path}.order`, false),
    attributes: readAttributes(o.attributes, `${path}.attributes`),
  };
}

export function readTopicConfigSerializeWrapper(
  v: JsonValue,
  path = "topicConfigSerializeWrapper",
): TopicConfigSerializeWrapper {
  const o = asObject(v, path);
  const table = new Map<string, TopicConfig>();
  for (const [key, tc] of Object.entries(asObjectOrEmpty(o.topicConfigTable, `${path}.topicConfigTable`))) {
    const config = readTopicConfig(tc, `${path}.topicConfigTable.${key}`, key);
    table.set(config.topicName, config);
  }
  const mappings = new Map<string, TopicQueueMappingInfo>();
  const mp = `${path}.topicQueueMappingInfoMap`;
  for (const [key, m] of Object.entries(asObjectOrEmpty(o.topicQueueMappingInfoMap, mp))) {
    mappings.set(key, readTopicQueueMappingInfo(m, `${mp}.${key}`));
  }
  return {
    topicConfigTable: table,
    dataVersion:
      o.dataVersion === undefined || o.dataVersion === null
        ? newDataVersion()
        : readDataVersion(o.dataVersion, `${path}.dataVersion`),
    topicQueueMappingInfoMap: mappings,
  };
}

export function decodeTopicConfigSerializeWrapper(body: Uint8Array): TopicConfigSerializeWrapper {
  return readTopicConfigSerializeWrapper(parseJson(new TextDecoder().decode(body)));
}

/** The one-line form (Java's TopicConfig.encode); attributes always written, `{}` when empty. */
export function topicConfigToLine(tc: TopicConfig): string {
  return `${tc.topicName} ${tc.readQueueNums} ${tc.writeQueueNums} ${tc.perm} ${tc.topicFilterType} ${JSON.stringify(tc.attributes)}`;
}

const INT = /^[+-]?\d+$/;

/** Java's TopicConfig.decode(String): split on single spaces; topicSysFlag and order are lost. */
export function topicConfigFromLine(line: string): TopicConfig {
  const parts = line.split(" ");
  // Java's String.split drops trailing empty strings.
  while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  if (parts.length < 5)
    throw new BodyShapeError(`topic config line has ${parts.length} fields: ${line.slice(0, 80)}`);
  const [name, read, write, perm, filter, attrs] = parts as [string, string, string, string, string, string?];
  for (const n of [read, write, perm]) {
    if (!INT.test(n)) throw new BodyShapeError(`topic config line: not a number: ${n}`);
  }
  const config = topicConfig(name, {
    readQueueNums: Number(read),
    writeQueueNums: Number(write),
    perm: Number(perm),
    topicFilterType: readFilterType(filter, "topic config line filter type"),
  });
  if (attrs !== undefined) {
    // Java ignores unparsable attributes here (values may contain spaces and be cut).
    try {
      config.attributes = readAttributes(parseJson(attrs), "attributes");
    } catch {}
  }
  return config;
}
