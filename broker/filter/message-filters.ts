/**
 * How SQL92 subscriptions reach the broker's reads (spec pop-timer-filter §C.1, §C.2): the one
 * hook each of PULL_MESSAGE, POP_MESSAGE, HEART_BEAT and CHECK_CLIENT_CONFIG calls, with the
 * response codes and remarks of §C.2. A filter evaluates the stored record's properties region.
 */
import {
  buildSubscription,
  ExpressionType,
  type SubscriptionData,
} from "../../src/protocol/body/subscription.ts";
import { lookupIn, type Sql92Filter } from "../../src/protocol/filter/index.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import type { MessageFilter } from "../store/message-store.ts";
import { ConsumerFilters } from "./consumer-filters.ts";
import { recordPropertyLookup } from "./record-properties.ts";

export const PARSE_FAILED_REMARK = "parse the consumer's subscription failed";
export const SQL92_DISABLED_REMARK = "The broker does not support consumer to filter message by SQL92";

const registries = new WeakMap<BrokerContext, ConsumerFilters>();

/** The broker's filter registry (one per broker context, created on first use). */
export function consumerFiltersOf(ctx: BrokerContext): ConsumerFilters {
  let r = registries.get(ctx);
  if (!r) {
    r = new ConsumerFilters(ctx.storeConfig.storePathRootDir, ctx.log.child({ part: "filters" }));
    registries.set(ctx, r);
  }
  return r;
}

/** A MessageFilter evaluating an SQL92 expression; `sql` also judges an arriving message's properties. */
interface SqlMessageFilter extends MessageFilter {
  readonly sql: Sql92Filter;
}

/** A filter that reads only the stored record's properties (the consume queue cannot decide). */
export function sqlMessageFilter(f: Sql92Filter): SqlMessageFilter {
  return {
    sql: f,
    isMatchedByConsumeQueue: () => true,
    isMatchedByCommitLog: (record) => f.matches(recordPropertyLookup(record)),
  };
}

/**
 * Whether a held pull should wake for a message with these properties (spec §C.6: long polling
 * re-checks the waiter's filter on the arriving message). True when unknown or not SQL92.
 */
export function arrivalMatches(
  filter: MessageFilter | undefined,
  properties: ReadonlyMap<string, string> | undefined,
): boolean {
  if (!filter || !properties || !("sql" in filter)) return true;
  return (filter as SqlMessageFilter).sql.matches(lookupIn(properties));
}

function isSql(sub: SubscriptionData | null): sub is SubscriptionData {
  return sub !== null && sub.expressionType !== ExpressionType.TAG;
}

/**
 * The subscription a pull carries in its header (subscription bit set). A non-TAG type with an
 * empty expression is refused, as Java's FilterAPI.build refuses it.
 */
export function subscriptionFromPullHeader(
  topic: string,
  subscription: string | undefined,
  expressionType: string | undefined,
  subVersion: number,
): SubscriptionData {
  if (!expressionType || expressionType === ExpressionType.TAG) {
    return buildSubscription(topic, subscription, subVersion);
  }
  if (!subscription || subscription.length === 0) {
    throw new RemotingError(ResponseCode.SUBSCRIPTION_PARSE_FAILED, PARSE_FAILED_REMARK);
  }
  return {
    topic,
    subString: subscription,
    tagsSet: [],
    codeSet: [],
    subVersion,
    expressionType,
    classFilterMode: false,
  };
}

/** For a pull without the subscription bit: the registered filter data must exist and be current. */
export function checkRegisteredFilter(
  ctx: BrokerContext,
  group: string,
  sub: SubscriptionData,
  requestSubVersion: number,
): void {
  if (!isSql(sub)) return;
  const data = consumerFiltersOf(ctx).get(sub.topic, group);
  if (!data) {
    throw new RemotingError(
      ResponseCode.FILTER_DATA_NOT_EXIST,
      "The broker's consumer filter data is not exist!Your expression may be wrong!",
    );
  }
  if (data.clientVersion < requestSubVersion) {
    throw new RemotingError(
      ResponseCode.FILTER_DATA_NOT_LATEST,
      "the consumer's consumer filter data not latest",
    );
  }
}

/**
 * The SQL92 filter of a pull whose checks passed (property filter enabled), or undefined for a
 * TAG subscription. An expression in the header that does not compile is refused with
 * SUBSCRIPTION_PARSE_FAILED (Java would match everything; spec §C.2 recommends refusing).
 */
export function pullSqlFilter(
  ctx: BrokerContext,
  group: string,
  sub: SubscriptionData | null,
  fromHeader: boolean,
): MessageFilter | undefined {
  if (!isSql(sub)) return undefined;
  if (!fromHeader) {
    const data = consumerFiltersOf(ctx).get(sub.topic, group);
    if (data) return sqlMessageFilter(data.compiled);
  }
  return compiledOrRefused(ctx, sub.expressionType, sub.subString);
}

/** POP's filter for a non-TAG `expType` (POP ignores enablePropertyFilter, §C.2). */
export function popSqlFilter(ctx: BrokerContext, expType: string, exp: string): MessageFilter {
  return compiledOrRefused(ctx, expType, exp);
}

function compiledOrRefused(ctx: BrokerContext, expressionType: string, expression: string): MessageFilter {
  const c = consumerFiltersOf(ctx).compiler.compile(expressionType, expression);
  if (!c.ok)
    throw new RemotingError(ResponseCode.SUBSCRIPTION_PARSE_FAILED, `${PARSE_FAILED_REMARK}: ${c.remark}`);
  return sqlMessageFilter(c.filter);
}

/** HEART_BEAT: a consumer's non-TAG subscriptions go into the registry. */
export function registerHeartbeatFilters(
  ctx: BrokerContext,
  group: string,
  subs: readonly SubscriptionData[],
): void {
  consumerFiltersOf(ctx).registerAll(group, subs);
}

/**
 * Persists the registry every `intervalMs` and marks the filters of groups without consumers dead
 * (deleted a day later); the timer joins the broker's `timers`, cleared on stop.
 */
export function startFilterSweep(
  ctx: BrokerContext,
  intervalMs: number,
  timers: ReturnType<typeof setInterval>[],
): void {
  const filters = consumerFiltersOf(ctx);
  filters.startPersisting(intervalMs);
  const sweep = setInterval(
    () => filters.sweep((g) => ctx.clients.consumerGroup(g) !== undefined),
    intervalMs,
  );
  sweep.unref?.();
  timers.push(sweep);
}
