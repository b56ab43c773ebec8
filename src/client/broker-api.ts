/**
 * Typed wrappers for the broker requests producers and consumers make (spec broker §1, §7, §8,
 * §9.2). Each returns decoded values or throws MQClientError; none keeps state.
 */
import type { HeartbeatData } from "../protocol/body/heartbeat.ts";
import {
  decodeLockBatchResponse,
  encodeLockBatchRequest,
  type LockBatchRequest,
} from "../protocol/body/lock-batch.ts";
import {
  GetConsumerListByGroupRequestHeader,
  UnregisterClientRequestHeader,
} from "../protocol/headers/client.ts";
import {
  OffsetResponseHeader,
  QueryConsumerOffsetRequestHeader,
  QueueRequestHeader,
  SearchOffsetRequestHeader,
  UpdateConsumerOffsetRequestHeader,
} from "../protocol/headers/offsets.ts";
import {
  type PullMessageRequestHeader as PullHeader,
  PullMessageRequestHeader,
  PullMessageResponseHeader,
} from "../protocol/headers/pull.ts";
import {
  QueryMessageRequestHeader,
  UNIQUE_KEY_QUERY,
  ViewMessageRequestHeader,
} from "../protocol/headers/query.ts";
import { ConsumerSendMsgBackRequestHeader } from "../protocol/headers/redelivery.ts";
import { jsonBytes, parseJson } from "../protocol/json/index.ts";
import {
  type ExtFields,
  type RemotingClient,
  RemotingCommand,
  RequestCode,
  ResponseCode,
} from "../remoting/index.ts";
import { decodeAnswer, MQClientError, toClientError } from "./errors.ts";
import { decodeMessages, type MessageExt } from "./message.ts";
import type { MessageQueue } from "./message-queue.ts";
import { call, callOneway } from "./rpc.ts";

export type PullStatus = "FOUND" | "NO_NEW_MSG" | "NO_MATCHED_MSG" | "OFFSET_ILLEGAL";

export interface PullResult {
  status: PullStatus;
  nextBeginOffset: number;
  minOffset: number;
  maxOffset: number;
  suggestWhichBrokerId: number;
  /** Raw stored records (FOUND only). */
  body: Uint8Array | null;
}

const PULL_STATUS: Record<number, PullStatus> = {
  [ResponseCode.SUCCESS]: "FOUND",
  [ResponseCode.PULL_NOT_FOUND]: "NO_NEW_MSG",
  [ResponseCode.PULL_RETRY_IMMEDIATELY]: "NO_MATCHED_MSG",
  [ResponseCode.PULL_OFFSET_MOVED]: "OFFSET_ILLEGAL",
};

export class BrokerApi {
  constructor(
    private readonly remoting: RemotingClient,
    readonly timeoutMs: number,
  ) {}

  async pull(addr: string, header: PullHeader, timeoutMs: number): Promise<PullResult> {
    // Invoked directly, not through rpc.call (one promise layer less per pull): PULL_STATUS names
    // the codes that are answers; any other is an error as call would make it.
    const code = RequestCode.PULL_MESSAGE;
    let r: RemotingCommand;
    try {
      r = await this.remoting.invoke(
        addr,
        RemotingCommand.request(code, PullMessageRequestHeader.encode(header), null),
        timeoutMs,
      );
    } catch (err) {
      throw toClientError(err, addr, code);
    }
    if (PULL_STATUS[r.code] === undefined)
      throw new MQClientError({ code: r.code, remark: r.remark ?? "", addr, requestCode: code });
    const h = decodeAnswer(addr, code, () => PullMessageResponseHeader.decode(r.extFields));
    return {
      status: PULL_STATUS[r.code]!,
      nextBeginOffset: h.nextBeginOffset,
      minOffset: h.minOffset,
      maxOffset: h.maxOffset,
      suggestWhichBrokerId: h.suggestWhichBrokerId,
      body: r.code === 0 ? r.body : null,
    };
  }

  /** The stored offset, or -1 when the broker has none (QUERY_NOT_FOUND). */
  async queryConsumerOffset(addr: string, group: string, topic: string, queueId: number): Promise<number> {
    const r = await call(
      this.remoting,
      addr,
      RequestCode.QUERY_CONSUMER_OFFSET,
      QueryConsumerOffsetRequestHeader.encode({ consumerGroup: group, topic, queueId }),
      null,
      this.timeoutMs,
      [0, ResponseCode.QUERY_NOT_FOUND],
    );
    if (r.code !== 0) return -1;
    return decodeAnswer(
      addr,
      RequestCode.QUERY_CONSUMER_OFFSET,
      () => OffsetResponseHeader.decode(r.extFields).offset,
    );
  }

  async updateConsumerOffset(
    addr: string,
    group: string,
    topic: string,
    queueId: number,
    offset: number,
    oneway: boolean,
  ): Promise<void> {
    const ext = UpdateConsumerOffsetRequestHeader.encode({
      consumerGroup: group,
      topic,
      queueId,
      commitOffset: offset,
    });
    if (oneway)
      await callOneway(this.remoting, addr, RequestCode.UPDATE_CONSUMER_OFFSET, ext, null, this.timeoutMs);
    else await call(this.remoting, addr, RequestCode.UPDATE_CONSUMER_OFFSET, ext, null, this.timeoutMs);
  }

  async maxOffset(addr: string, topic: string, queueId: number): Promise<number> {
    return this.offsetCall(addr, RequestCode.GET_MAX_OFFSET, QueueRequestHeader.encode({ topic, queueId }));
  }

  async minOffset(addr: string, topic: string, queueId: number): Promise<number> {
    return this.offsetCall(addr, RequestCode.GET_MIN_OFFSET, QueueRequestHeader.encode({ topic, queueId }));
  }

  async searchOffset(addr: string, topic: string, queueId: number, timestamp: number): Promise<number> {
    return this.offsetCall(
      addr,
      RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
      SearchOffsetRequestHeader.encode({ topic, queueId, timestamp }),
    );
  }

  async earliestStoreTime(addr: string, topic: string, queueId: number): Promise<number> {
    const r = await call(
      this.remoting,
      addr,
      RequestCode.GET_EARLIEST_MSG_STORETIME,
      QueueRequestHeader.encode({ topic, queueId }),
      null,
      this.timeoutMs,
    );
    return Number(r.ext("timestamp") ?? -1);
  }

  async heartbeat(addr: string, data: HeartbeatData): Promise<number> {
    const r = await call(
      this.remoting,
      addr,
      RequestCode.HEART_BEAT,
      null,
      jsonBytes(data, "standard"),
      this.timeoutMs,
    );
    return r.version;
  }

  async unregisterClient(
    addr: string,
    clientID: string,
    groups: { producerGroup?: string; consumerGroup?: string },
  ): Promise<void> {
    await call(
      this.remoting,
      addr,
      RequestCode.UNREGISTER_CLIENT,
      UnregisterClientRequestHeader.encode({ clientID, ...groups }),
      null,
      this.timeoutMs,
    );
  }

  async consumerIdList(addr: string, group: string): Promise<string[]> {
    const r = await call(
      this.remoting,
      addr,
      RequestCode.GET_CONSUMER_LIST_BY_GROUP,
      GetConsumerListByGroupRequestHeader.encode({ consumerGroup: group }),
      null,
      this.timeoutMs,
    );
    const body = r.body;
    if (!body) return [];
    const o = decodeAnswer(
      addr,
      RequestCode.GET_CONSUMER_LIST_BY_GROUP,
      () => parseJson(new TextDecoder().decode(body)) as { consumerIdList?: unknown },
    );
    return Array.isArray(o.consumerIdList) ? o.consumerIdList.map(String) : [];
  }

  async sendMessageBack(
    addr: string,
    msg: MessageExt,
    group: string,
    delayLevel: number,
    maxReconsumeTimes: number,
  ): Promise<void> {
    await call(
      this.remoting,
      addr,
      RequestCode.CONSUMER_SEND_MSG_BACK,
      ConsumerSendMsgBackRequestHeader.encode({
        offset: msg.commitLogOffset,
        group,
        delayLevel,
        originMsgId: msg.msgId,
        originTopic: msg.topic,
        unitMode: false,
        maxReconsumeTimes,
      }),
      null,
      this.timeoutMs,
    );
  }

  /** LOCK_BATCH_MQ (spec broker §8.9): the queues of the request the client holds afterwards. */
  async lockBatch(addr: string, req: LockBatchRequest, timeoutMs: number): Promise<MessageQueue[]> {
    const code = RequestCode.LOCK_BATCH_MQ;
    const r = await call(this.remoting, addr, code, null, encodeLockBatchRequest(req), timeoutMs);
    return decodeAnswer(addr, code, () => decodeLockBatchResponse(r.body));
  }

  /** UNLOCK_BATCH_MQ; oneway as Java unlocks a queue a rebalance dropped. */
  async unlockBatch(addr: string, req: LockBatchRequest, oneway: boolean, timeoutMs: number): Promise<void> {
    const code = RequestCode.UNLOCK_BATCH_MQ;
    const body = encodeLockBatchRequest(req);
    if (oneway) await callOneway(this.remoting, addr, code, null, body, timeoutMs);
    else await call(this.remoting, addr, code, null, body, timeoutMs);
  }

  /** VIEW_MESSAGE_BY_ID: the record at a physical offset. */
  async viewMessage(addr: string, physicalOffset: number, brokerName: string): Promise<MessageExt | null> {
    const r = await call(
      this.remoting,
      addr,
      RequestCode.VIEW_MESSAGE_BY_ID,
      ViewMessageRequestHeader.encode({ offset: physicalOffset }),
      null,
      this.timeoutMs,
    );
    return r.body ? (decodeMessages(r.body, brokerName)[0] ?? null) : null;
  }

  /** QUERY_MESSAGE by key (or by UNIQ_KEY); no hit gives []. */
  async queryMessage(
    addr: string,
    brokerName: string,
    q: { topic: string; key: string; maxNum: number; begin: number; end: number; unique: boolean },
  ): Promise<MessageExt[]> {
    const ext: ExtFields = QueryMessageRequestHeader.encode({
      topic: q.topic,
      key: q.key,
      maxNum: q.maxNum,
      beginTimestamp: q.begin,
      endTimestamp: q.end,
    });
    if (q.unique) ext[UNIQUE_KEY_QUERY] = "true";
    const r = await call(this.remoting, addr, RequestCode.QUERY_MESSAGE, ext, null, this.timeoutMs, [
      0,
      ResponseCode.QUERY_NOT_FOUND,
    ]);
    return r.code === 0 && r.body ? decodeMessages(r.body, brokerName) : [];
  }

  private async offsetCall(addr: string, code: number, ext: ExtFields): Promise<number> {
    const r = await call(this.remoting, addr, code, ext, null, this.timeoutMs);
    const offset = r.ext("offset");
    if (offset === undefined)
      throw new MQClientError({ code: 1, remark: "response without offset", addr, requestCode: code });
    return Number(offset);
  }
}
