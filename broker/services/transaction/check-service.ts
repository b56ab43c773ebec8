/**
 * The transaction check service (spec broker §10.3, Java's TransactionalMessageCheckService):
 * every `transactionCheckInterval` it walks the half queue from CID_SYS_RMQ_TRANS's offset. A
 * half message no op record finished and older than `transactionTimeOut` (or its
 * CHECK_IMMUNITY_TIME_IN_SECONDS) is re-appended with TRANSACTION_CHECK_TIMES + 1 and the new
 * copy is checked: CHECK_TRANSACTION_STATE, oneway, on the connection of one live producer of its
 * PGROUP. One checked `transactionCheckMax` times, or born longer than `fileReservedTime` ago,
 * is parked in TRANS_CHECK_MAX_TIME_TOPIC instead. A walk stops at the first message too young,
 * or stored after the walk began, and lasts at most 60 s.
 */
import type { Logger } from "pino";
import { CheckTransactionStateRequestHeader } from "../../../src/protocol/headers/transaction.ts";
import {
  encodeRecord,
  type HostAddress,
  MessageConst,
  parseJavaLong,
} from "../../../src/protocol/message/index.ts";
import { DEFAULT_PERM } from "../../../src/protocol/route/perm.ts";
import { TRANS_CHECK_MAX_TIME_TOPIC, TRANS_HALF_TOPIC } from "../../../src/protocol/topic-names.ts";
import { HALF_QUEUE_ID } from "../../../src/protocol/transaction.ts";
import { RemotingCommand } from "../../../src/remoting/command.ts";
import type { RemotingEndpoint } from "../../../src/remoting/endpoint.ts";
import { RequestCode } from "../../../src/remoting/request-code.ts";
import type { ConsumerOffsets } from "../../metadata/consumer-offsets.ts";
import type { MessageStore, QueueUnit } from "../../store/message-store.ts";
import { holdsMessage } from "../../store/reads.ts";
import type { TopicManager } from "../../topics/topic-manager.ts";
import type { ClientManager } from "../client-manager.ts";
import type { BrokerService } from "../service.ts";
import {
  messageFromRecord,
  type ParkedRecord,
  readParked,
  realQueueIdOf,
  STORED_STATUSES,
} from "../stored-message.ts";
import type { HalfProgress } from "./half-progress.ts";
import type { TransactionStats } from "./transactions.ts";

/** Java's MAX_PROCESS_TIME_LIMIT: one walk of the half queue lasts at most this long. */
const WALK_MS_MAX = 60_000;
/** Half units read per store call. */
const HALF_PAGE = 128;
/** Java's Broker2Client waits this long for a oneway permit. */
const CHECK_PERMIT_MS = 10;

export interface CheckConfig {
  readonly transactionTimeOut: number;
  readonly transactionCheckMax: number;
  readonly transactionCheckInterval: number;
  /** Hours (fileReservedTime): a half message born longer ago is discarded unchecked. */
  readonly fileReservedTime: number;
}

export interface CheckServiceOptions {
  readonly config: CheckConfig;
  readonly store: MessageStore;
  readonly offsets: ConsumerOffsets;
  readonly topics: TopicManager;
  readonly clients: ClientManager;
  readonly endpoint: () => RemotingEndpoint;
  readonly brokerName: string;
  readonly storeHost: () => HostAddress;
  readonly progress: HalfProgress;
  readonly stats: TransactionStats;
  readonly log: Logger;
  readonly now?: () => number;
}

/** A half message to check, as re-appended. */
interface Copy {
  readonly rec: ParkedRecord;
  readonly queueOffset: number;
  readonly physicalOffset: number;
  readonly storeTimestamp: number;
  readonly offsetMsgId: string;
}

type Verdict = "finished" | "discard" | "stop" | "immune" | "check";

export class TransactionCheckService implements BrokerService {
  readonly name = "transaction-check";
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly now: () => number;

  constructor(private readonly o: CheckServiceOptions) {
    this.now = o.now ?? Date.now;
  }

  async start(): Promise<void> {
    this.o.progress.load();
    await this.o.progress.readOps();
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  *runtimeInfo(): Iterable<readonly [string, string]> {
    const s = this.o.stats;
    yield ["transactionHalfPending", String(this.o.progress.pending())];
    yield ["transactionCheckSent", String(s.checksSent)];
    yield ["transactionCheckDiscarded", String(s.discarded)];
    yield ["transactionCommitted", String(s.committed)];
    yield ["transactionRolledBack", String(s.rolledBack)];
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.walk().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, this.o.config.transactionCheckInterval);
    this.timer.unref?.();
  }

  private async walk(): Promise<void> {
    const started = this.now();
    const progress = this.o.progress;
    try {
      await progress.readOps();
      let next = progress.halfOffset;
      walking: while (this.now() - started < WALK_MS_MAX && !this.stopped) {
        next = this.pastFinished(next);
        const units = await this.o.store.readQueueUnits(TRANS_HALF_TOPIC, HALF_QUEUE_ID, next, HALF_PAGE);
        if (units.length === 0) break;
        const held = units.filter((u) => holdsMessage(u) && !progress.isFinished(u.queueOffset));
        const records = await this.o.store.readRecords(held.map((u) => [u.phyOffset, u.size] as const));
        const byUnit = new Map<QueueUnit, Uint8Array | undefined>(held.map((u, i) => [u, records[i]]));
        const checks: Promise<void>[] = [];
        for (const u of units) {
          const bytes = byUnit.get(u);
          if (bytes === undefined) {
            // A filler, a finished half, or a record retention removed: nothing to check.
            next = u.queueOffset + 1;
            continue;
          }
          const rec = readParked(bytes);
          const verdict = this.verdictOf(rec, started);
          if (verdict === "stop") break walking;
          if (verdict === "discard") await this.discard(rec);
          else if (verdict === "immune") {
            const copy = immunityCopy(rec, u.queueOffset);
            progress.noteImmunityOrigin(Number(copy[MessageConst.TRAN_PREPARED_QUEUE_OFFSET]));
            await this.putBack(rec, copy);
          } else if (verdict === "check") {
            const copy = await this.putBack(rec, checkedCopy(rec));
            if (copy) checks.push(this.sendCheck(copy));
          }
          next = u.queueOffset + 1;
        }
        await Promise.all(checks);
      }
      progress.advance(next);
      await this.o.offsets.persist();
    } catch (err) {
      this.o.log.error({ err }, "transaction check failed");
    }
  }

  /**
   * The first offset from `next` whose half is not finished: the pages of finished halves (nearly
   * all of a busy interval's) are passed without reading their units, as reading them would only
   * move `next` past each. Only within [min, max) of the half queue, where every offset has a unit.
   */
  private pastFinished(next: number): number {
    const store = this.o.store;
    if (next < store.getMinOffsetInQueue(TRANS_HALF_TOPIC, HALF_QUEUE_ID)) return next;
    return this.o.progress.firstUnfinished(next, store.getMaxOffsetInQueue(TRANS_HALF_TOPIC, HALF_QUEUE_ID));
  }

  /** What to do with an unfinished half message (Java's check loop, in its order). */
  private verdictOf(rec: ParkedRecord, started: number): Verdict {
    const c = this.o.config;
    const prepared = rec.properties.get(MessageConst.TRAN_PREPARED_QUEUE_OFFSET);
    if (prepared !== undefined && this.o.progress.isFinished(Number(prepared))) return "finished";
    const times = checkTimesOf(rec);
    const age = this.now() - rec.bornTimestamp;
    if (times >= c.transactionCheckMax || age > c.fileReservedTime * 3_600_000) return "discard";
    if (rec.storeTimestamp >= started) return "stop";
    const immunity = rec.properties.get(MessageConst.CHECK_IMMUNITY_TIME_IN_SECONDS);
    if (immunity !== undefined) {
      return age <= immunityMsOf(immunity, c.transactionTimeOut) ? "immune" : "check";
    }
    return age >= 0 && age <= c.transactionTimeOut ? "stop" : "check";
  }

  /** Appends a copy of the half message to the half queue; undefined if the store refused it. */
  private async putBack(rec: ParkedRecord, set: Record<string, string>): Promise<Copy | undefined> {
    const msg = messageFromRecord(rec, { topic: TRANS_HALF_TOPIC, queueId: HALF_QUEUE_ID, set });
    const put = await this.o.store.putMessage(msg);
    if (!STORED_STATUSES.has(put.status) || !put.result) {
      this.o.log.warn({ status: put.status }, "half message not put back; checked next round");
      return undefined;
    }
    return {
      rec: readParkedOf(msg),
      queueOffset: put.result.queueOffset,
      physicalOffset: put.result.wroteOffset,
      storeTimestamp: put.result.storeTimestamp,
      offsetMsgId: put.result.msgId,
    };
  }

  /** Parks a half message checked too often in TRANS_CHECK_MAX_TIME_TOPIC (Java's resolveDiscardMsg). */
  private async discard(rec: ParkedRecord): Promise<void> {
    await this.o.topics.createIfAbsent(TRANS_CHECK_MAX_TIME_TOPIC, 1, DEFAULT_PERM);
    const put = await this.o.store.putMessage(
      messageFromRecord(rec, { topic: TRANS_CHECK_MAX_TIME_TOPIC, queueId: 0 }),
    );
    this.o.stats.discarded++;
    this.o.log.warn(
      {
        uniqKey: rec.properties.get(MessageConst.UNIQ_KEY),
        group: rec.properties.get(MessageConst.PGROUP),
        status: put.status,
      },
      "half message checked too many times, parked in TRANS_CHECK_MAX_TIME_TOPIC",
    );
  }

  /** CHECK_TRANSACTION_STATE to one live producer of the group; none online: skipped (Java logs it). */
  private async sendCheck(copy: Copy): Promise<void> {
    const rec = copy.rec;
    const group = rec.properties.get(MessageConst.PGROUP) ?? "";
    const channels = this.o.clients.producerChannels(group);
    const channel = channels[Math.floor(Math.random() * channels.length)];
    if (!channel) {
      this.o.log.debug({ group }, "no producer of the group online, check skipped");
      return;
    }
    const uniqKey = rec.properties.get(MessageConst.UNIQ_KEY);
    const realTopic = rec.properties.get(MessageConst.REAL_TOPIC) ?? TRANS_HALF_TOPIC;
    const ext = CheckTransactionStateRequestHeader.encode({
      topic: realTopic,
      tranStateTableOffset: copy.queueOffset,
      commitLogOffset: copy.physicalOffset,
      ...(uniqKey ? { msgId: uniqKey, transactionId: uniqKey } : {}),
      offsetMsgId: copy.offsetMsgId,
      bname: this.o.brokerName,
    });
    // The body is the copy in stored format with its real destination (Java's MessageDecoder.encode).
    const body = encodeRecord(
      {
        topic: realTopic,
        queueId: realQueueIdOf(rec) ?? 0,
        flag: rec.flag,
        sysFlag: rec.sysFlag,
        bornTimestamp: rec.bornTimestamp,
        bornHost: rec.bornHost,
        storeHost: rec.storeHost,
        reconsumeTimes: rec.reconsumeTimes,
        preparedTransactionOffset: 0,
        body: rec.body,
        properties: rec.propertiesString,
      },
      {
        queueOffset: copy.queueOffset,
        physicalOffset: copy.physicalOffset,
        storeTimestamp: copy.storeTimestamp,
      },
    );
    try {
      await this.o
        .endpoint()
        .invokeOneway(
          channel.conn,
          RemotingCommand.request(RequestCode.CHECK_TRANSACTION_STATE, ext, body),
          CHECK_PERMIT_MS,
        );
      this.o.stats.checksSent++;
    } catch (err) {
      this.o.log.warn({ err: (err as Error).message, group, client: channel.clientId }, "check not sent");
    }
  }
}

/** TRANSACTION_CHECK_TIMES; 0 when absent or unreadable. */
function checkTimesOf(rec: ParkedRecord): number {
  const text = rec.properties.get(MessageConst.TRANSACTION_CHECK_TIMES);
  return text === undefined ? 0 : (parseJavaLong(text) ?? 0);
}

/** Java's getImmunityTime: seconds → ms; -1 or unreadable means transactionTimeOut. */
function immunityMsOf(text: string, transactionTimeOut: number): number {
  const n = parseJavaLong(text);
  return n === undefined || n === -1 ? transactionTimeOut : n * 1000;
}

/** Properties of the copy a check is sent for: one more check (absent ⇒ "1"). */
function checkedCopy(rec: ParkedRecord): Record<string, string> {
  return { [MessageConst.TRANSACTION_CHECK_TIMES]: String(checkTimesOf(rec) + 1) };
}

/** An immune message put back unchecked remembers its first half offset (TRAN_PREPARED_QUEUE_OFFSET). */
function immunityCopy(rec: ParkedRecord, queueOffset: number): Record<string, string> {
  const first = rec.properties.get(MessageConst.TRAN_PREPARED_QUEUE_OFFSET) ?? String(queueOffset);
  return { [MessageConst.TRAN_PREPARED_QUEUE_OFFSET]: first };
}

/** The put-back message's fields as the check body needs them. */
function readParkedOf(msg: ReturnType<typeof messageFromRecord>): ParkedRecord {
  return {
    flag: msg.flag,
    sysFlag: msg.sysFlag,
    bornTimestamp: msg.bornTimestamp,
    bornHost: msg.bornHost,
    storeTimestamp: 0,
    storeHost: msg.storeHost,
    reconsumeTimes: msg.reconsumeTimes,
    body: msg.body,
    propertiesString: msg.propertiesString ?? "",
    properties: msg.properties,
  };
}
