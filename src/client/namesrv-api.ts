/**
 * NameServer requests with failover: calls go to the current NameServer; a transport failure moves
 * to the next address in the list and tries each at most once per call. Response codes (e.g.
 * TOPIC_NOT_EXIST) are answers, not failures, and do not fail over.
 */
import type { Logger } from "pino";
import { GetRouteInfoRequestHeader } from "../protocol/headers/namesrv.ts";
import {
  type ClusterInfo,
  decodeClusterInfo,
  decodeTopicList,
  decodeTopicRouteData,
  type TopicRouteData,
} from "../protocol/route/index.ts";
import {
  type ExtFields,
  type RemotingClient,
  type RemotingCommand,
  RequestCode,
  ResponseCode,
} from "../remoting/index.ts";
import { clientError, decodeAnswer, MQClientError } from "./errors.ts";
import { call } from "./rpc.ts";

export class NamesrvApi {
  private index = 0;

  constructor(
    private readonly remoting: RemotingClient,
    readonly addrs: readonly string[],
    private readonly timeoutMs: number,
    private readonly log: Logger,
  ) {
    if (addrs.length === 0) throw clientError("no NameServer address given (namesrvAddr)");
    // Spread clients over the NameServers, as Java picks a random start index.
    this.index = Math.floor(Math.random() * addrs.length);
  }

  /** The NameServer the next call goes to. */
  get current(): string {
    return this.addrs[this.index % this.addrs.length]!;
  }

  async invoke(
    code: number,
    ext: ExtFields | null,
    body: Uint8Array | null = null,
  ): Promise<RemotingCommand> {
    let last: unknown;
    for (let tried = 0; tried < this.addrs.length; tried++) {
      const addr = this.current;
      try {
        return await call(this.remoting, addr, code, ext, body, this.timeoutMs, [0, ...ANSWER_CODES]);
      } catch (err) {
        last = err;
        this.log.warn({ addr, err: (err as Error).message }, "NameServer call failed, trying the next one");
        this.index = (this.index + 1) % this.addrs.length;
      }
    }
    throw last;
  }

  /** The route of a topic, or null when the NameServer knows no such topic. */
  async topicRoute(topic: string): Promise<TopicRouteData | null> {
    const r = await this.invoke(
      RequestCode.GET_ROUTEINFO_BY_TOPIC,
      GetRouteInfoRequestHeader.encode({ topic }),
    );
    if (r.code === 17) return null;
    expectSuccess(r, this.current, RequestCode.GET_ROUTEINFO_BY_TOPIC);
    const body = r.body;
    const addr = this.current;
    if (!body)
      throw new MQClientError({
        code: ResponseCode.SYSTEM_ERROR,
        remark: "route response without a body",
        addr,
        requestCode: RequestCode.GET_ROUTEINFO_BY_TOPIC,
      });
    return decodeAnswer(addr, RequestCode.GET_ROUTEINFO_BY_TOPIC, () => decodeTopicRouteData(body));
  }

  async clusterInfo(): Promise<ClusterInfo> {
    const r = await this.invoke(RequestCode.GET_BROKER_CLUSTER_INFO, null);
    expectSuccess(r, this.current, RequestCode.GET_BROKER_CLUSTER_INFO);
    return decodeAnswer(this.current, RequestCode.GET_BROKER_CLUSTER_INFO, () =>
      decodeClusterInfo(r.body ?? new Uint8Array()),
    );
  }

  async allTopics(): Promise<string[]> {
    const r = await this.invoke(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, null);
    expectSuccess(r, this.current, RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER);
    return decodeAnswer(
      this.current,
      RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER,
      () => decodeTopicList(r.body ?? new Uint8Array()).topicList,
    );
  }

  /** DELETE_TOPIC_IN_NAMESRV on every NameServer (each holds its own table). */
  async deleteTopicEverywhere(topic: string): Promise<void> {
    await Promise.all(
      this.addrs.map((addr) =>
        call(this.remoting, addr, RequestCode.DELETE_TOPIC_IN_NAMESRV, { topic }, null, this.timeoutMs),
      ),
    );
  }
}

/** Codes a NameServer answers with that are results rather than transport failures. */
const ANSWER_CODES = [1, 2, 3, 14, 16, 17, 22] as const;

function expectSuccess(r: RemotingCommand, addr: string, requestCode: number): void {
  if (r.code !== 0) throw new MQClientError({ code: r.code, remark: r.remark ?? "", addr, requestCode });
}
