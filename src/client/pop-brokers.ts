/**
 * Which brokers a POP for a topic may go to: those of the topic's route with readable queues and a
 * master (POP is served by masters), refreshed from the NameServer when older than the client's
 * poll interval. Consumers that pop do not register with the instance (they send no heartbeats,
 * §A.1), so the instance's periodic refresh does not cover their topics: this does.
 */
import { isReadable, MASTER_ID } from "../protocol/route/index.ts";
import { ResponseCode } from "../remoting/index.ts";
import type { ClientInstance } from "./client-instance.ts";
import { MQClientError } from "./errors.ts";

export class PopBrokers {
  private readonly fetchedAt = new Map<string, number>();
  private turn = 0;

  constructor(private readonly client: ClientInstance) {}

  /** The brokers that serve `topic`, sorted by name; TOPIC_NOT_EXIST when it has none. */
  async of(topic: string, fresh = false): Promise<string[]> {
    const age = Date.now() - (this.fetchedAt.get(topic) ?? 0);
    let route = this.client.routes.routes.get(topic);
    if (!route || fresh || age > this.client.options.pollNameServerIntervalMs) {
      route = (await this.client.refreshRoute(topic)) ?? undefined;
      this.fetchedAt.set(topic, Date.now());
    }
    const names = (route?.queueDatas ?? [])
      .filter((q) => isReadable(q.perm) && q.readQueueNums > 0)
      .map((q) => q.brokerName)
      .filter((b) => route?.brokerDatas.some((d) => d.brokerName === b && d.brokerAddrs.has(MASTER_ID)))
      .sort();
    if (names.length === 0)
      throw new MQClientError({
        code: ResponseCode.TOPIC_NOT_EXIST,
        remark: `No route info of this topic: ${topic}`,
      });
    return names;
  }

  /** The next broker of `topic` in turn, so successive pops spread over its brokers. */
  async next(topic: string): Promise<string> {
    const names = await this.of(topic);
    this.turn = (this.turn + 1) % 0x7fff_ffff;
    return names[this.turn % names.length]!;
  }
}
