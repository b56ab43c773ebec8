/**
 * SimpleConsumer, shaped like RocketMQ 5's: the caller receives messages under a lease, then acks
 * each one or changes how long it stays invisible. Built on POP (spec pop-timer-filter §A): no
 * queue assignment, no rebalance, no offsets kept here; a message not acked within its invisible
 * duration is delivered again (reconsumeTimes + 1, same msgId), to this consumer or another of the
 * group. The receipt handle is an opaque string on each received message.
 */
import { ExpressionType } from "../protocol/body/subscription.ts";
import { ConsumeInitMode } from "../protocol/headers/pop.ts";
import { topicNameProblem } from "../protocol/topic-names.ts";
import { ResponseCode } from "../remoting/index.ts";
import type { ClientInstance } from "./client-instance.ts";
import { clientError, MQClientError } from "./errors.ts";
import { validateGroup } from "./message.ts";
import { checkRanges, type Ranges, TIMER_MS_MAX } from "./option-ranges.ts";
import type { ClientOptions } from "./options.ts";
import { PopApi, type PoppedMessage } from "./pop-api.ts";
import { PopBrokers } from "./pop-brokers.ts";
import { newClient } from "./producer.ts";

/** Java 5's SimpleConsumer default await duration (the proxy clamps long polls to 20 s). */
export const DEFAULT_AWAIT_DURATION_MS = 20_000;
/** The proxy's defaultInvisibleTimeMills. */
export const DEFAULT_INVISIBLE_DURATION_MS = 60_000;
/** The broker's cap on one POP (§A.4.2). */
export const RECEIVE_MESSAGES_MAX = 32;

export const SIMPLE_CONSUMER_RANGES: Ranges = {
  awaitDuration: [0, 60_000],
  invisibleDuration: [1000, 12 * 3600 * 1000],
};

/** A filter: a tag expression ("*", "TagA || TagB"), or SQL92 over properties. */
export type FilterExpression = string | { sql92: string };

export interface SimpleConsumerOptions extends Partial<ClientOptions> {
  client?: ClientInstance;
  group: string;
  /** topic → filter. */
  subscriptions: Readonly<Record<string, FilterExpression>>;
  /** How long `receive` waits for a message when none is ready (long polling), ms. */
  awaitDuration?: number;
  /** How long received messages stay invisible to the group unless acked, ms. */
  invisibleDuration?: number;
  /** Where a group that has consumed nothing starts: "last" (default, as the proxy) or "first". */
  startFrom?: "first" | "last";
}

/** A received message. */
export type SimpleMessage = PoppedMessage;

export class SimpleConsumer {
  readonly group: string;
  private readonly pop: PopApi;
  private readonly brokers: PopBrokers;
  private readonly subs = new Map<string, FilterExpression>();
  private topicTurn = 0;
  private state: "running" | "stopped" = "running";

  constructor(
    readonly client: ClientInstance,
    private readonly ownsClient: boolean,
    private readonly o: SimpleConsumerOptions,
  ) {
    this.group = o.group;
    this.pop = new PopApi(client);
    this.brokers = new PopBrokers(client);
    for (const [topic, filter] of Object.entries(o.subscriptions)) this.subscribe(topic, filter);
  }

  /** Adds or replaces a topic's filter. */
  subscribe(topic: string, filter: FilterExpression = "*"): void {
    const problem = topicNameProblem(topic);
    if (problem !== null) throw clientError(problem);
    this.subs.set(topic, filter);
  }

  unsubscribe(topic: string): void {
    this.subs.delete(topic);
  }

  subscriptions(): ReadonlyMap<string, FilterExpression> {
    return this.subs;
  }

  /**
   * Up to `max` (1–32) messages of one subscribed topic, taken in turn, from one of its brokers,
   * waiting up to the await duration when none is ready; [] when none came.
   */
  async receive(max = RECEIVE_MESSAGES_MAX, invisibleDuration?: number): Promise<SimpleMessage[]> {
    this.checkRunning();
    if (!Number.isInteger(max) || max < 1 || max > RECEIVE_MESSAGES_MAX)
      throw clientError(`max ${max} is out of range [1, ${RECEIVE_MESSAGES_MAX}]`);
    const invisibleMs = invisibleDuration ?? this.o.invisibleDuration ?? DEFAULT_INVISIBLE_DURATION_MS;
    checkRanges({ invisibleDuration: invisibleMs }, SIMPLE_CONSUMER_RANGES);
    const topics = [...this.subs.keys()];
    if (topics.length === 0) throw clientError("the consumer subscribes to no topic");
    const topic = topics[this.topicTurn++ % topics.length]!;
    this.topicTurn %= 0x7fff_ffff;
    const filter = this.subs.get(topic)!;
    const request = {
      group: this.group,
      topic,
      maxMessages: max,
      invisibleMs,
      awaitMs: this.o.awaitDuration ?? DEFAULT_AWAIT_DURATION_MS,
      ...(typeof filter === "string"
        ? { expression: filter.trim() || "*", expressionType: ExpressionType.TAG }
        : { expression: filter.sql92, expressionType: ExpressionType.SQL92 }),
      initMode: this.o.startFrom === "first" ? ConsumeInitMode.MIN : ConsumeInitMode.MAX,
    };
    try {
      const result = await this.pop.pop({ ...request, brokerName: await this.brokers.next(topic) });
      return result.messages;
    } catch (err) {
      // A broker gone from the route or a topic moved: learn the route again for the next call.
      if (err instanceof MQClientError && ROUTE_STALE.has(err.code))
        await this.brokers.of(topic, true).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Acknowledges a received message: it is not delivered again. A handle that expired or was
   * replaced by changeInvisibleDuration acks nothing (the broker answers success all the same),
   * so the message comes back.
   */
  async ack(message: SimpleMessage): Promise<void> {
    this.checkRunning();
    await this.pop.ack(this.group, message.topic, handleOf(message));
  }

  /**
   * Makes the message invisible for `invisibleDuration` ms from now (0 redelivers it at once) and
   * gives it a new receipt handle, set on `message` and returned; the old handle no longer acks.
   */
  async changeInvisibleDuration(message: SimpleMessage, invisibleDuration: number): Promise<string> {
    this.checkRunning();
    if (!Number.isInteger(invisibleDuration) || invisibleDuration < 0 || invisibleDuration > TIMER_MS_MAX)
      throw clientError(`invisibleDuration ${invisibleDuration} is out of range [0, ${TIMER_MS_MAX}]`);
    const handle = await this.pop.changeInvisible(
      this.group,
      message.topic,
      handleOf(message),
      invisibleDuration,
    );
    message.receiptHandle = handle;
    return handle;
  }

  /** Nothing to start beyond what createSimpleConsumer did; kept for the RocketMQ 5 shape. */
  async start(): Promise<void> {
    this.checkRunning();
    this.client.start();
    await Promise.all([...this.subs.keys()].map((t) => this.brokers.of(t)));
  }

  /** Leases held stay with the broker: un-acked messages come back after their invisible time. */
  async shutdown(): Promise<void> {
    if (this.state === "stopped") return;
    this.state = "stopped";
    if (this.ownsClient) await this.client.shutdown();
  }

  private checkRunning(): void {
    if (this.state === "stopped")
      throw clientError("simple consumer is shut down", ResponseCode.SERVICE_NOT_AVAILABLE);
  }
}

const ROUTE_STALE = new Set<number>([
  ResponseCode.TOPIC_NOT_EXIST,
  ResponseCode.SYSTEM_ERROR,
  ResponseCode.RPC_SEND_TO_CHANNEL_FAILED,
]);

function handleOf(message: SimpleMessage): string {
  if (typeof message?.receiptHandle !== "string" || message.receiptHandle.length === 0)
    throw clientError("the message has no receipt handle: was it received by a SimpleConsumer?");
  return message.receiptHandle;
}

/**
 * Creates a SimpleConsumer and checks that every subscribed topic has a route (TOPIC_NOT_EXIST
 * otherwise), as Java's SimpleConsumerBuilder.build() does.
 */
export async function createSimpleConsumer(options: SimpleConsumerOptions): Promise<SimpleConsumer> {
  if (!options.group) throw clientError("consumer group is required");
  validateGroup(options.group);
  checkRanges(options, SIMPLE_CONSUMER_RANGES);
  const owns = !options.client;
  const client = options.client ?? newClient(options);
  const consumer = new SimpleConsumer(client, owns, options);
  try {
    await consumer.start();
  } catch (err) {
    await consumer.shutdown();
    throw err;
  }
  return consumer;
}
