/**
 * RegisterBrokerBody (spec remoting §7.7): `{filterServerList, topicConfigSerializeWrapper}` as JSON,
 * or the compressed form 4.9.x brokers send with `compressed=true`, a zlib stream of:
 *
 *   int32 len, DataVersion JSON
 *   int32 topicCount, then per topic: int32 len, TopicConfig line ("T 4 4 6 SINGLE_TAG {}")
 *   int32 len, filterServerList JSON array
 *   (request version ≥ 413, V5_0_0) int32 mappingCount, then per mapping: int32 len, TopicQueueMappingInfo JSON
 *
 * All int32 are big-endian.
 */
import { deflateSync, inflateSync } from "node:zlib";
import {
  asArrayOrEmpty,
  asObject,
  asString,
  BodyShapeError,
  type JsonValue,
  jsonBytes,
  parseJson,
} from "../json/index.ts";
import { newDataVersion, readDataVersion } from "./data-version.ts";
import {
  readTopicConfigSerializeWrapper,
  type TopicConfigSerializeWrapper,
  topicConfigFromLine,
  topicConfigToLine,
} from "./topic-config.ts";
import { readTopicQueueMappingInfo, type TopicQueueMappingInfo } from "./topic-route-data.ts";

export interface RegisterBrokerBody {
  topicConfigSerializeWrapper: TopicConfigSerializeWrapper;
  filterServerList: string[];
}

/** V3_0_11: from this request version on, the body is a RegisterBrokerBody (before: a bare wrapper). */
export const REGISTER_BODY_MIN_VERSION = 37;
/** V5_0_0: from this request version on, a compressed body ends with the static-topic mappings. */
export const COMPRESSED_MAPPING_MIN_VERSION = 413;
/** Inflated bodies larger than this are refused (a zlib bomb must not exhaust memory). */
export const INFLATED_BYTES_MAX = 64 * 1024 * 1024;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** What Java's NameServer assumes when a registration has no body: no topics, version {0, 0, 0}. */
export function emptyRegisterBrokerBody(): RegisterBrokerBody {
  return {
    topicConfigSerializeWrapper: {
      topicConfigTable: new Map(),
      dataVersion: newDataVersion(0),
      topicQueueMappingInfoMap: new Map(),
    },
    filterServerList: [],
  };
}

export function readRegisterBrokerBody(v: JsonValue): RegisterBrokerBody {
  const o = asObject(v, "RegisterBrokerBody");
  const wrapper = o.topicConfigSerializeWrapper;
  return {
    topicConfigSerializeWrapper:
      wrapper === undefined || wrapper === null
        ? emptyRegisterBrokerBody().topicConfigSerializeWrapper
        : readTopicConfigSerializeWrapper(wrapper),
    filterServerList: asArrayOrEmpty(o.filterServerList, "filterServerList").map((s) =>
      asString(s, "filterServerList[]"),
    ),
  };
}

/** Decodes either form; `version` is the request's (it decides whether mappings follow). */
export function decodeRegisterBrokerBody(
  body: Uint8Array,
  compressed: boolean,
  version: number,
): RegisterBrokerBody {
  if (!compressed) return readRegisterBrokerBody(parseJson(decoder.decode(body)));
  return decodeCompressed(inflateSync(body, { maxOutputLength: INFLATED_BYTES_MAX }), version);
}

function wrapperJson(w: TopicConfigSerializeWrapper): Record<string, unknown> {
  return {
    dataVersion: w.dataVersion,
    topicConfigTable: w.topicConfigTable,
    topicQueueMappingInfoMap: w.topicQueueMappingInfoMap,
  };
}

export function encodeRegisterBrokerBody(body: RegisterBrokerBody): Uint8Array {
  return jsonBytes({
    filterServerList: body.filterServerList,
    topicConfigSerializeWrapper: wrapperJson(body.topicConfigSerializeWrapper),
  });
}

/** A bare TopicConfigSerializeWrapper, as brokers older than V3_0_11 send it. */
export function encodeTopicConfigSerializeWrapper(w: TopicConfigSerializeWrapper): Uint8Array {
  return jsonBytes(wrapperJson(w));
}

/** The compressed form; `version` is the request version it will travel with. */
export function encodeRegisterBrokerBodyCompressed(body: RegisterBrokerBody, version: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  const int = (n: number) => {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setInt32(0, n);
    chunks.push(b);
  };
  const text = (bytes: Uint8Array) => {
    int(bytes.length);
    chunks.push(bytes);
  };
  const w = body.topicConfigSerializeWrapper;
  text(jsonBytes(w.dataVersion));
  int(w.topicConfigTable.size);
  for (const tc of w.topicConfigTable.values()) text(encoder.encode(topicConfigToLine(tc)));
  text(jsonBytes(body.filterServerList));
  if (version >= COMPRESSED_MAPPING_MIN_VERSION) {
    int(w.topicQueueMappingInfoMap.size);
    for (const m of w.topicQueueMappingInfoMap.values()) text(jsonBytes(m));
  }
  return deflateSync(Buffer.concat(chunks), { level: 9 });
}

function decodeCompressed(raw: Uint8Array, version: number): RegisterBrokerBody {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  let pos = 0;
  const int = (what: string): number => {
    if (pos + 4 > raw.length) throw new BodyShapeError(`compressed body ends before ${what}`);
    const n = view.getInt32(pos);
    pos += 4;
    if (n < 0) throw new BodyShapeError(`compressed body: negative ${what}`);
    return n;
  };
  const text = (what: string): string => {
    const len = int(`${what} length`);
    if (pos + len > raw.length) throw new BodyShapeError(`compressed body ends inside ${what}`);
    const s = decoder.decode(raw.subarray(pos, pos + len));
    pos += len;
    return s;
  };
  const dataVersion = readDataVersion(parseJson(text("dataVersion")));
  const out = emptyRegisterBrokerBody();
  const wrapper = out.topicConfigSerializeWrapper;
  wrapper.dataVersion = dataVersion;
  const topicCount = int("topic count");
  for (let i = 0; i < topicCount; i++) {
    const tc = topicConfigFromLine(text("topic config"));
    wrapper.topicConfigTable.set(tc.topicName, tc);
  }
  // Java logs and ignores an unparsable filter-server list.
  const filters = text("filterServerList");
  try {
    out.filterServerList = asArrayOrEmpty(parseJson(filters), "filterServerList").map((s) =>
      asString(s, "filterServerList[]"),
    );
  } catch {}
  if (version >= COMPRESSED_MAPPING_MIN_VERSION) {
    const mappings = new Map<string, TopicQueueMappingInfo>();
    const count = int("mapping count");
    for (let i = 0; i < count; i++) {
      const info = readTopicQueueMappingInfo(parseJson(text("mapping")), `mapping[${i}]`);
      mappings.set(info.topic, info);
    }
    wrapper.topicQueueMappingInfoMap = mappings;
  }
  return out;
}
