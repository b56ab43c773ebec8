/**
 * Transactional producer (Java's TransactionMQProducer, spec broker §10): sends a half message
 * (TRAN_MSG=true, PGROUP, PREPARED sysFlag), runs the local transaction, and ends it with a oneway
 * END_TRANSACTION (commit, rollback or unknown, with the local exception as remark). When the
 * broker asks (CHECK_TRANSACTION_STATE on this client's connection), `checkLocalTransaction`
 * answers with a oneway END_TRANSACTION marked fromTransactionCheck.
 */
import {
  type CheckTransactionStateRequestHeader,
  EndTransactionRequestHeader,
} from "../protocol/headers/transaction.ts";
import {
  decodeOffsetMessageId,
  MessageConst,
  MessageSysFlag,
  NAME_VALUE_SEPARATOR,
  PROPERTY_SEPARATOR,
} from "../protocol/message/index.ts";
import { RemotingCommand, RequestCode } from "../remoting/index.ts";
import { clientError } from "./errors.ts";
import {
  bodyBytes,
  encodeMessageProperties,
  type Message,
  type MessageExt,
  validateGroup,
} from "./message.ts";
import { checkRanges, PRODUCER_RANGES } from "./option-ranges.ts";
import { newClient, Producer, type ProducerOptions } from "./producer.ts";
import { AUTO_CREATE_TOPIC_KEY, type SendResult } from "./send-request.ts";

/** Java's LocalTransactionState names (UNKNOW is Java's spelling). */
export type LocalTransactionState = "COMMIT_MESSAGE" | "ROLLBACK_MESSAGE" | "UNKNOW";

const STATE_WIRE: Record<LocalTransactionState, number> = {
  COMMIT_MESSAGE: MessageSysFlag.TRANSACTION_COMMIT_TYPE,
  ROLLBACK_MESSAGE: MessageSysFlag.TRANSACTION_ROLLBACK_TYPE,
  UNKNOW: MessageSysFlag.TRANSACTION_NOT_TYPE,
};

/** The message as the local transaction sees it: the sent message and its transaction id. */
export type TransactionalMessage = Message & { readonly transactionId: string };

export interface TransactionProducerOptions extends ProducerOptions {
  /** Runs the local transaction after the half message is stored; a throw or no answer means UNKNOW. */
  executeLocalTransaction(
    msg: TransactionalMessage,
    arg: unknown,
  ): LocalTransactionState | undefined | Promise<LocalTransactionState | undefined>;
  /** Answers the broker's check of a transaction it has no end for; a throw means UNKNOW. */
  checkLocalTransaction(
    msg: MessageExt,
  ): LocalTransactionState | undefined | Promise<LocalTransactionState | undefined>;
  /** ms an END_TRANSACTION may wait for a oneway permit (default: sendMsgTimeoutMs, 3000). */
  endTransactionTimeoutMs?: number;
}

export interface TransactionSendResult extends SendResult {
  readonly localTransactionState: LocalTransactionState;
}

/**
 * The CommitLog offset in an offset message id (spec broker §3.1): its last 16 hex digits. Read
 * directly, not through decodeOffsetMessageId, which also decodes the host: this runs per
 * transaction. Exact below 2^53, as every offset a store reaches is.
 */
function physicalOffsetOf(offsetMsgId: string): number {
  const n = Number.parseInt(offsetMsgId.slice(-16), 16);
  if (!Number.isSafeInteger(n)) return decodeOffsetMessageId(offsetMsgId).physicalOffset;
  return n;
}

const prop = (name: string, value: string) => name + NAME_VALUE_SEPARATOR + value + PROPERTY_SEPARATOR;

export class TransactionProducer extends Producer {
  constructor(
    client: Producer["client"],
    ownsClient: boolean,
    private readonly tx: TransactionProducerOptions,
  ) {
    super(client, ownsClient, tx);
  }

  /** Sends `msg` as a half message, runs the local transaction, ends it; resolves to the send and the state. */
  async sendMessageInTransaction(msg: Message, arg?: unknown): Promise<TransactionSendResult> {
    // Java ignores a delay level here; a transactional message is delivered when committed.
    // (No copy when there is none to ignore: this runs per transaction.)
    const plain: Message = msg.delayLevel === undefined ? msg : { ...msg, delayLevel: undefined };
    const msgId = this.client.nextUniqueId();
    const properties =
      encodeMessageProperties(plain, "") +
      prop(MessageConst.TRAN_MSG, "true") +
      prop(MessageConst.PGROUP, this.group) +
      prop(MessageConst.UNIQ_KEY, msgId);
    let result: SendResult;
    try {
      result = await this.sendEncoded({
        topic: msg.topic,
        body: bodyBytes(msg.body),
        flag: msg.flag ?? 0,
        sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE,
        properties,
        msgId,
        source: msg,
      });
    } catch (err) {
      throw clientError(`send message Exception: ${(err as Error).message}`);
    }
    let state: LocalTransactionState = "UNKNOW";
    let localError: unknown;
    if (result.sendStatus === "SEND_OK") {
      try {
        state =
          (await this.tx.executeLocalTransaction({ ...msg, transactionId: result.msgId }, arg)) ?? "UNKNOW";
      } catch (err) {
        localError = err;
        this.client.log.error(
          { err, msgId: result.msgId },
          "executeLocalTransaction threw; the broker will check",
        );
      }
    } else {
      // Stored, but not where the producer asked (flush or slave lag): Java rolls back.
      state = "ROLLBACK_MESSAGE";
    }
    const remark =
      localError === undefined ? null : `executeLocalTransactionBranch exception: ${String(localError)}`;
    await this.endTransaction(msg.topic, result, state, remark).catch((err: unknown) =>
      this.client.log.warn(
        { err, state, msgId: result.msgId },
        "local transaction ended, but END_TRANSACTION failed",
      ),
    );
    return { ...result, localTransactionState: state };
  }

  /** A CHECK_TRANSACTION_STATE from the broker at `addr`: ask the application, answer oneway. */
  async checkTransactionState(addr: string, msg: MessageExt, check: CheckTransactionStateRequestHeader) {
    let state: LocalTransactionState = "UNKNOW";
    let remark: string | null = null;
    try {
      state = (await this.tx.checkLocalTransaction(msg)) ?? "UNKNOW";
    } catch (err) {
      remark = `checkLocalTransactionState Exception: ${String(err)}`;
      this.client.log.error({ err, msgId: msg.msgId }, "checkLocalTransaction threw");
    }
    const ext = EndTransactionRequestHeader.encode({
      topic: msg.topic,
      producerGroup: this.group,
      tranStateTableOffset: check.tranStateTableOffset,
      commitLogOffset: check.commitLogOffset,
      commitOrRollback: STATE_WIRE[state],
      fromTransactionCheck: true,
      msgId: msg.properties[MessageConst.UNIQ_KEY] ?? msg.msgId,
      ...(check.transactionId !== undefined ? { transactionId: check.transactionId } : {}),
      ...(check.bname !== undefined ? { bname: check.bname } : {}),
    });
    await this.sendEnd(addr, ext, remark).catch((err: unknown) =>
      this.client.log.warn({ err, msgId: msg.msgId }, "check answered, but END_TRANSACTION failed"),
    );
  }

  /**
   * Not an async function (with the broker's address known, as it nearly always is, no coroutine
   * per END), but fails as one would: a throw is a rejected promise, which the caller logs.
   */
  private endTransaction(
    topic: string,
    result: SendResult,
    state: LocalTransactionState,
    remark: string | null,
  ): Promise<void> {
    try {
      const brokerName = result.messageQueue.brokerName;
      const addr = this.client.routes.masterAddr(brokerName);
      if (addr !== undefined) return this.endAt(addr, topic, result, state, remark);
      return this.client
        .masterAddr(brokerName, topic)
        .then((found) => this.endAt(found, topic, result, state, remark));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private endAt(
    addr: string,
    topic: string,
    result: SendResult,
    state: LocalTransactionState,
    remark: string | null,
  ): Promise<void> {
    const header: EndTransactionRequestHeader = {
      topic,
      producerGroup: this.group,
      tranStateTableOffset: result.queueOffset,
      commitLogOffset: physicalOffsetOf(result.offsetMsgId),
      commitOrRollback: STATE_WIRE[state],
      fromTransactionCheck: false,
      msgId: result.msgId,
      bname: result.messageQueue.brokerName,
    };
    // Set, not spread in: one object per END. The encoder writes fields in its own order.
    if (result.transactionId !== undefined) header.transactionId = result.transactionId;
    return this.sendEnd(addr, EndTransactionRequestHeader.encode(header), remark);
  }

  private sendEnd(
    addr: string,
    ext: ReturnType<typeof EndTransactionRequestHeader.encode>,
    remark: string | null,
  ) {
    const request = RemotingCommand.request(RequestCode.END_TRANSACTION, ext);
    request.remark = remark;
    return this.client.remoting.invokeOneway(addr, request, this.tx.endTransactionTimeoutMs ?? 3000);
  }
}

/** Creates and starts a transactional producer; its group answers the broker's checks. */
export async function createTransactionProducer(
  options: TransactionProducerOptions,
): Promise<TransactionProducer> {
  checkRanges(options, PRODUCER_RANGES);
  if (options.group !== undefined) validateGroup(options.group);
  const owns = !options.client;
  const client = options.client ?? newClient(options);
  const producer = new TransactionProducer(client, owns, options);
  client.registerProducer(producer);
  client.start();
  // As Java's producer does at start: learn the brokers from TBW102's route and heartbeat them at
  // once, so a restarted producer is asked about its group's pending transactions before it sends.
  await client.refreshRoute(AUTO_CREATE_TOPIC_KEY).catch(() => null);
  await client.heartbeatAll().catch(() => {});
  return producer;
}
