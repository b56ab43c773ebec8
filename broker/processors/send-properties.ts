/**
 * The stored properties of a sent message: the client's plus the broker's own keys (spec broker
 * §1.4 step 7), built without decoding the client's string when it is canonical; and the
 * producer's address as a record host. Shared by every send of the send processor.
 */
import {
  decodeProperties,
  encodeProperties,
  type HostAddress,
  MessageConst,
  PICKED_KEYS,
  PROPERTY_SEPARATOR,
  PropertiesView,
  parseHostAddress,
  pickCanonical,
} from "../../src/protocol/message/index.ts";
import type { RequestContext } from "../../src/remoting/processor-registry.ts";
import type { BrokerContext } from "../context.ts";

/**
 * Stored properties: the client's plus the broker's own keys (spec §1.4 step 7). Like a 4.9 broker we
 * add no UNIQ_KEY: a client that sent none (ali-ons) reports the offset id as the message id, and
 * consumers then see that same id.
 */
export function completeProperties(ctx: BrokerContext, props: Map<string, string>): Map<string, string> {
  props.set(MessageConst.CLUSTER, ctx.brokerConfig.brokerClusterName);
  props.set(MessageConst.MSG_REGION, ctx.brokerConfig.regionId);
  props.set(MessageConst.TRACE_ON, String(ctx.brokerConfig.traceOn));
  return props;
}

/** The broker's keys as `completeProperties` would append them to a map that lacks them. */
export function brokerSuffixOf(ctx: BrokerContext): string {
  const c = ctx.brokerConfig;
  const cached = suffixCache.get(ctx);
  if (
    cached &&
    cached.cluster === c.brokerClusterName &&
    cached.region === c.regionId &&
    cached.traceOn === c.traceOn
  ) {
    return cached.suffix;
  }
  const suffix = encodeProperties(completeProperties(ctx, new Map()));
  suffixCache.set(ctx, { cluster: c.brokerClusterName, region: c.regionId, traceOn: c.traceOn, suffix });
  return suffix;
}

/** Per broker: the config values the suffix was built from, so a config change rebuilds it. */
const suffixCache = new WeakMap<
  BrokerContext,
  { cluster: string; region: string; traceOn: boolean; suffix: string }
>();

/**
 * The stored properties of a client's properties string. When the string is canonical (what
 * encodeProperties of its own decoding gives) and lacks the broker's keys, decoding, completing and
 * re-encoding would only append `suffix`; so append it and look keys up in the string. Otherwise
 * take the map route. Both give the same bytes.
 */
export function storedProperties(
  ctx: BrokerContext,
  client: string,
  suffix: string,
): { properties: ReadonlyMap<string, string>; propertiesString: string } {
  const picked = pickCanonical(client);
  if (
    picked &&
    picked[CLUSTER_AT] === undefined &&
    picked[REGION_AT] === undefined &&
    picked[TRACE_AT] === undefined
  ) {
    const joined =
      client.length === 0 || client.endsWith(PROPERTY_SEPARATOR)
        ? client + suffix
        : client + PROPERTY_SEPARATOR + suffix;
    // An empty config value is dropped by encodeProperties, so the string then has no such key.
    const c = ctx.brokerConfig;
    picked[CLUSTER_AT] = c.brokerClusterName || undefined;
    picked[REGION_AT] = c.regionId || undefined;
    picked[TRACE_AT] = String(c.traceOn);
    return { properties: new PropertiesView(joined, picked), propertiesString: joined };
  }
  const props = completeProperties(ctx, decodeProperties(client));
  return { properties: props, propertiesString: encodeProperties(props) };
}

const CLUSTER_AT = PICKED_KEYS.indexOf(MessageConst.CLUSTER);
const REGION_AT = PICKED_KEYS.indexOf(MessageConst.MSG_REGION);
const TRACE_AT = PICKED_KEYS.indexOf(MessageConst.TRACE_ON);

/** The producer's address as a record host, parsed once per connection. */
export function bornHostOf(rc: RequestContext): HostAddress {
  const cached = rc.connection.attributes.get(BORN_HOST);
  if (cached) return cached as HostAddress;
  let host: HostAddress;
  try {
    host = parseHostAddress(rc.connection.remoteAddress);
  } catch {
    host = parseHostAddress("127.0.0.1:0");
  }
  rc.connection.attributes.set(BORN_HOST, host);
  return host;
}

const BORN_HOST = "send.bornHost";
