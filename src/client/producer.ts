/**
 * Producer: sync, callback-async and oneway sends, batches, queue selection (round robin with
 * broker fault avoidance, a selector function, a sharding key), retries on another broker for
 * retriable failures, and compression above a threshold (Java's DefaultMQProducerImpl).
 */
import { RemotingCommand, ResponseCode } from "../remoting/index.ts";
import { BatchBuffers } from "./batch-body.ts";
import { ClientInstance } from "./client-instance.ts";
import { DEFAULT_COMPRESS_BODY_OVER_BYTES, DEFAULT_COMPRESS_LEVEL } from "./compression.ts";
import { clientError, MQClientError, toClientError } from "./errors.ts";
import { DEFAULT_FAULT_ISOLATION_MS, LatencyFaultTolerance } from "./latency-fault.ts";
import {
  MESSAGE_BODY_BYTES_MAX,
  type Message,
  type MessageExt,
  validateGroup,
  validateMessage,
} from "./message.ts";
import type { MessageQueue } from "./message-queue.ts";
import { checkRanges, PRODUCER_RANGES } from "./option-ranges.ts";
import type { ClientOptions } from "./options.ts";
import { type QueueSelector, RoundRobin, selectByShardingKey, selectQueue } from "./queue-selector.ts";
import { type RequestOptions, sendReply, sendRequest } from "./request-reply.ts";
import { callOneway } from "./rpc.ts";
import {
  AUTO_CREATE_TOPIC_KEY,
  DEFAULT_TOPIC_QUEUE_NUMS,
  type PreparedSend,
  type PrepareOptions,
  prepareBatch,
  prepareSingle,
  readSendResponse,
  type SendResult,
  sendRequestParts,
} from "./send-request.ts";

export const DEFAULT_PRODUCER_GROUP = "DEFAULT_PRODUCER";
export const DEFAULT_SEND_MSG_TIMEOUT_MS = 3000;
export const DEFAULT_RETRY_TIMES_WHEN_SEND_FAILED = 2;

export interface ProducerOptions extends Partial<ClientOptions> {
  /** Share an existing client instance instead of creating one (then namesrvAddr is not needed). */
  client?: ClientInstance;
  group?: string;
  sendMsgTimeoutMs?: number;
  retryTimesWhenSendFailed?: number;
  retryTimesWhenSendAsyncFailed?: number;
  /** Bodies of at least this many bytes are zlib-compressed (Java's compressMsgBodyOverHowmuch). */
  compressMsgBodyOverBytes?: number;
  compressLevel?: number;
  maxMessageBytes?: number;
  /** Avoid a broker for a while after it failed or answered slowly (default true). */
  sendLatencyFaultEnable?: boolean;
  faultIsolationMs?: number;
  /** Retry on another broker when the status is a stored-but-not-OK one (default false). */
  retryAnotherBrokerWhenNotStoreOK?: boolean;
}

export interface SendOptions {
  /** Send to exactly this queue. */
  queue?: MessageQueue;
  selector?: QueueSelector;
  /** Queue chosen by the key's hash (ordered messages of one key stay in one queue). */
  shardingKey?: string;
  timeoutMs?: number;
}

/** A message with its properties already encoded (see Producer.sendEncoded). */
export interface EncodedMessage {
  topic: string;
  body: Uint8Array;
  flag?: number;
  sysFlag?: number;
  /** The whole properties string (spec broker §2.1). */
  properties: string;
  /** The UNIQ_KEY inside `properties`, reported back as the result's msgId. */
  msgId: string;
  /** The caller's message, for queue selectors. */
  source?: Message;
  /** A request-reply answer: sent as SEND_REPLY_MESSAGE_V2 (see request-reply.ts). */
  reply?: boolean;
}

export type SendCallback = (err: MQClientError | null, result?: SendResult) => void;

export class Producer {
  readonly group: string;
  private readonly rr = new RoundRobin();
  private readonly faults: LatencyFaultTolerance | null;
  /** Topics this producer sent to, with their first route load (shared by concurrent sends). */
  private readonly topicsUsed = new Map<string, Promise<unknown>>();
  /** Topics whose first route load has finished. */
  private readonly routeLoaded = new Set<string>();
  /** Why asking the NameServer for a topic's route last failed (a TLS or connect error), for noRoute. */
  private readonly routeFailures = new Map<string, unknown>();
  /**
   * Queues for topics the NameServer does not know yet, taken from the TBW102 route (Java keeps
   * them in its topicPublishInfoTable too): without them every send to a topic the broker is
   * about to auto-create would ask the NameServer for TBW102 again. A topic's own route, once
   * the periodic refresh finds it, takes precedence.
   */
  private readonly autoCreateQueues = new Map<string, readonly MessageQueue[]>();
  private readonly prep: PrepareOptions;
  /**
   * Only over the default TCP transport, which copies a frame before writing it: an injected
   * transport (in-process) may hand the body itself to the broker, which could keep it.
   */
  private readonly batchBuffers: BatchBuffers | undefined;
  private stopped = false;

  constructor(
    readonly client: ClientInstance,
    private readonly ownsClient: boolean,
    private readonly o: ProducerOptions,
  ) {
    this.group = o.group ?? DEFAULT_PRODUCER_GROUP;
    this.faults =
      o.sendLatencyFaultEnable === false
        ? null
        : new LatencyFaultTolerance(o.faultIsolationMs ?? DEFAULT_FAULT_ISOLATION_MS);
    this.batchBuffers = client.options.connector ? undefined : new BatchBuffers();
    this.prep = {
      nextUniqueId: client.nextUniqueId,
      ...(this.batchBuffers ? { batchBuffers: this.batchBuffers } : {}),
      compressOverBytes: o.compressMsgBodyOverBytes ?? DEFAULT_COMPRESS_BODY_OVER_BYTES,
      compressLevel: o.compressLevel ?? DEFAULT_COMPRESS_LEVEL,
      bodyBytesMax: o.maxMessageBytes ?? MESSAGE_BODY_BYTES_MAX,
    };
  }

  /** Sends and resolves with the broker's answer, retrying retriable failures on another broker. */
  send(msg: Message, options: SendOptions = {}): Promise<SendResult> {
    // Not an async function: one promise layer fewer on the hottest call; a bad message is still
    // a rejection, never a throw at the caller.
    let p: PreparedSend;
    try {
      p = prepareSingle(msg, this.prep);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.sendPrepared(p, options, this.retries(false));
  }

  /** Sends several messages of one topic as one SEND_BATCH_MESSAGE request. */
  async sendBatch(msgs: readonly Message[], options: SendOptions = {}): Promise<SendResult> {
    const p = prepareBatch(msgs, this.prep);
    const result = await this.sendPrepared(p, options, this.retries(false));
    // Answered on the only attempt: the broker read the whole frame, so no queued write still holds
    // the body. After a failed attempt a write to that broker may still be queued: never reuse it.
    if (p.attempts === 1) this.batchBuffers?.give(p.body);
    return result;
  }

  /** Callback form: never rejects; the callback gets the result or the error exactly once. */
  sendAsync(msg: Message, callback: SendCallback, options: SendOptions = {}): void {
    let prepared: PreparedSend;
    try {
      prepared = prepareSingle(msg, this.prep);
    } catch (err) {
      queueMicrotask(() => callback(toClientError(err, "", 0)));
      return;
    }
    this.sendPrepared(prepared, options, this.retries(true)).then(
      (r) => callback(null, r),
      (err: unknown) => callback(err instanceof MQClientError ? err : toClientError(err, "", 0)),
    );
  }

  /**
   * Sends a message whose properties string the caller built, UNIQ_KEY included, as is (no
   * reserved-name check, no compression): the client's own senders that must keep system
   * properties use it, the DLQ resend and the transaction producer's half messages.
   */
  sendEncoded(m: EncodedMessage, options: SendOptions = {}): Promise<SendResult> {
    const p: PreparedSend = {
      topic: m.topic,
      body: m.body,
      flag: m.flag ?? 0,
      sysFlag: m.sysFlag ?? 0,
      properties: m.properties,
      batch: false,
      msgId: m.msgId,
      source: m.source ?? { topic: m.topic, body: m.body },
      attempts: 0,
      ...(m.reply ? { reply: true } : {}),
    };
    try {
      validateMessage(p.source, p.body, this.prep.bodyBytesMax);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.sendPrepared(p, options, this.retries(false));
  }

  /** Fire and forget: one attempt, no response awaited from the broker. */
  async sendOneway(msg: Message, options: SendOptions = {}): Promise<void> {
    const p = prepareSingle(msg, this.prep);
    const mq = await this.pickQueue(p, options, undefined);
    const addr = await this.client.masterAddr(mq.brokerName, p.topic);
    const req = sendRequestParts(p, mq, this.group);
    await callOneway(
      this.client.remoting,
      addr,
      req.code,
      req.ext,
      req.body,
      options.timeoutMs ?? this.timeout,
    );
  }

  /** Request-reply: resolves with the reply to `msg`; 10006 after `timeoutMs` (request-reply.ts). */
  request(msg: Message, options: RequestOptions = {}): Promise<MessageExt> {
    return sendRequest(this, msg, options.timeoutMs ?? this.timeout, options);
  }

  /** Answers a request message (one a consumer received) with `body`: see request-reply.ts. */
  reply(requestMsg: MessageExt, body: Uint8Array | string, options: SendOptions = {}): Promise<SendResult> {
    return sendReply(this, requestMsg, body, options);
  }

  /** The writable queues of a topic (for callers that pick queues themselves). */
  async fetchPublishQueues(topic: string): Promise<MessageQueue[]> {
    return [...(await this.publishQueues(topic))];
  }

  async shutdown(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.client.unregister("producer", this.group);
    if (this.ownsClient) await this.client.shutdown();
  }

  private get timeout(): number {
    return this.o.sendMsgTimeoutMs ?? DEFAULT_SEND_MSG_TIMEOUT_MS;
  }

  private retries(async: boolean): number {
    const n = async ? this.o.retryTimesWhenSendAsyncFailed : this.o.retryTimesWhenSendFailed;
    return n ?? DEFAULT_RETRY_TIMES_WHEN_SEND_FAILED;
  }

  private async sendPrepared(p: PreparedSend, options: SendOptions, retryTimes: number): Promise<SendResult> {
    if (this.stopped) throw clientError("producer is shut down", ResponseCode.SERVICE_NOT_AVAILABLE);
    const timeoutMs = options.timeoutMs ?? this.timeout;
    const begin = Date.now();
    let lastBroker: string | undefined;
    let lastError: MQClientError | undefined;
    for (let attempt = 0; attempt <= retryTimes; attempt++) {
      const left = timeoutMs - (Date.now() - begin);
      if (left <= 0) break;
      const mq = this.pickQueueNow(p, options, lastBroker) ?? (await this.pickQueue(p, options, lastBroker));
      const started = Date.now();
      try {
        const result = await this.sendOnce(p, mq, left);
        this.faults?.update(mq.brokerName, Date.now() - started, false);
        if (
          result.sendStatus !== "SEND_OK" &&
          this.o.retryAnotherBrokerWhenNotStoreOK &&
          attempt < retryTimes
        ) {
          lastBroker = mq.brokerName;
          continue;
        }
        return result;
      } catch (err) {
        const e = err instanceof MQClientError ? err : toClientError(err, mq.brokerName, 0);
        this.faults?.update(mq.brokerName, Date.now() - started, true);
        if (!e.retriable) throw e;
        this.client.log.warn({ broker: mq.brokerName, attempt, err: e.message }, "send failed, retrying");
        lastBroker = mq.brokerName;
        lastError = e;
        if (e.code === ResponseCode.TOPIC_NOT_EXIST)
          await this.client.refreshRoute(p.topic).catch(() => null);
      }
    }
    throw (
      lastError ??
      new MQClientError({
        code: ResponseCode.RPC_TIME_OUT,
        remark: `send of ${p.topic} timed out after ${timeoutMs} ms`,
      })
    );
  }

  private async sendOnce(p: PreparedSend, mq: MessageQueue, timeoutMs: number): Promise<SendResult> {
    const addr =
      this.client.routes.masterAddr(mq.brokerName) ?? (await this.client.masterAddr(mq.brokerName, p.topic));
    const req = sendRequestParts(p, mq, this.group);
    p.attempts++;
    // Invoked directly, not through rpc.call: readSendResponse already turns every code but the
    // four send statuses into an MQClientError, and the layer cost a promise per send.
    let r: RemotingCommand;
    try {
      r = await this.client.remoting.invoke(
        addr,
        RemotingCommand.request(req.code, req.ext, req.body),
        timeoutMs,
      );
    } catch (err) {
      throw toClientError(err, addr, req.code);
    }
    return readSendResponse(r, p, mq, addr, req.code);
  }

  /** The queue from cached routes without awaiting, or null when a route must be loaded first. */
  private pickQueueNow(
    p: PreparedSend,
    options: SendOptions,
    lastBroker: string | undefined,
  ): MessageQueue | null {
    if (options.queue) return options.queue;
    if (!this.routeLoaded.has(p.topic)) return null;
    const own = this.client.routes.publishInfo(p.topic)?.queues;
    const queues = own && own.length > 0 ? own : this.autoCreateQueues.get(p.topic);
    if (!queues || queues.length === 0) return null;
    if (options.selector) return options.selector(queues, p.source);
    if (options.shardingKey !== undefined) return selectByShardingKey(queues, options.shardingKey);
    return selectQueue(queues, this.rr, this.faults, lastBroker) ?? null;
  }

  private async pickQueue(
    p: PreparedSend,
    options: SendOptions,
    lastBroker: string | undefined,
  ): Promise<MessageQueue> {
    if (options.queue) return options.queue;
    const queues = await this.publishQueues(p.topic);
    if (queues.length === 0) throw noRoute(p.topic, this.routeFailures.get(p.topic));
    if (options.selector) return options.selector(queues, p.source);
    if (options.shardingKey !== undefined) return selectByShardingKey(queues, options.shardingKey);
    return selectQueue(queues, this.rr, this.faults, lastBroker) ?? queues[0]!;
  }

  private async publishQueues(topic: string): Promise<readonly MessageQueue[]> {
    let first = this.topicsUsed.get(topic);
    if (!first) {
      first = this.client
        .route(topic)
        .then(
          // A producer's first send to a topic tells the brokers who it is.
          (route) => (route ? this.client.heartbeatAll() : undefined),
          (err: unknown) => void this.routeFailures.set(topic, err),
        )
        .finally(() => this.routeLoaded.add(topic));
      this.topicsUsed.set(topic, first);
    }
    await first;
    const info = this.client.routes.publishInfo(topic);
    if (info && info.queues.length > 0) {
      this.routeFailures.delete(topic);
      this.autoCreateQueues.delete(topic);
      return info.queues;
    }
    const queues = (await this.autoCreateInfo(topic))?.queues ?? [];
    if (queues.length > 0) this.autoCreateQueues.set(topic, queues);
    return queues;
  }

  /** Java's fallback for an unknown topic: the TBW102 route, min(4, writeQueueNums) queues per broker. */
  private async autoCreateInfo(topic: string) {
    const template = await this.client.refreshRoute(AUTO_CREATE_TOPIC_KEY).catch((err: unknown) => {
      this.routeFailures.set(topic, err);
      return null;
    });
    if (!template) return null;
    return this.client.routes.publishInfoOf(topic, template, DEFAULT_TOPIC_QUEUE_NUMS);
  }

  topics(): Iterable<string> {
    return this.topicsUsed.keys();
  }
}

/** Java's remark, plus why the NameServer could not be asked when that is known. */
function noRoute(topic: string, failure?: unknown): MQClientError {
  const why = failure instanceof Error ? ` (the NameServer could not be asked: ${failure.message})` : "";
  return new MQClientError({
    code: ResponseCode.TOPIC_NOT_EXIST,
    remark: `No route info of this topic: ${topic}${why}`,
    // The cause lets a caller tell "no such topic" from "no NameServer answered".
    ...(failure !== undefined ? { cause: failure } : {}),
  });
}

/** Creates and starts a producer. */
export async function createProducer(options: ProducerOptions): Promise<Producer> {
  checkRanges(options, PRODUCER_RANGES);
  if (options.group !== undefined) validateGroup(options.group);
  const owns = !options.client;
  const client = options.client ?? newClient(options);
  const producer = new Producer(client, owns, options);
  client.registerProducer(producer);
  client.start();
  return producer;
}

export function newClient(options: Partial<ClientOptions>): ClientInstance {
  if (!options.namesrvAddr) throw clientError("namesrvAddr is required when no client is given");
  return new ClientInstance({ ...options, namesrvAddr: options.namesrvAddr });
}
