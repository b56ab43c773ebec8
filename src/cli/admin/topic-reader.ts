/**
 * Reads every message of a topic, queue by queue from its minimum to its maximum offset, without
 * committing anything: what the DLQ and transaction verbs show or resend.
 */
import type { Admin, MessageExt } from "../../client/index.ts";
import { decodeMessages } from "../../client/message.ts";
import { isReadable, MASTER_ID } from "../../protocol/route/index.ts";

/** Messages per pull (the broker's own page limit is 32 per request by default). */
const PAGE = 32;

/**
 * Up to `limit` messages of `topic` in broker, queue and offset order; a topic without a route (no
 * message ever stored) reads as empty.
 */
export async function readTopic(admin: Admin, topic: string, limit: number): Promise<MessageExt[]> {
  const route = await admin.topicRoute(topic).catch(() => null);
  if (!route) return [];
  const out: MessageExt[] = [];
  const api = admin.client.broker;
  for (const q of [...route.queueDatas].sort((a, b) => a.brokerName.localeCompare(b.brokerName))) {
    if (!isReadable(q.perm)) continue;
    const addr = route.brokerDatas.find((b) => b.brokerName === q.brokerName)?.brokerAddrs.get(MASTER_ID);
    if (addr === undefined) continue;
    for (let queueId = 0; queueId < q.readQueueNums; queueId++) {
      const mq = { topic, brokerName: q.brokerName, queueId };
      const to = await api.maxOffset(addr, topic, queueId);
      let offset = await api.minOffset(addr, topic, queueId);
      while (offset < to && out.length < limit) {
        const pulled = await admin.pullFrom(mq, offset, Math.min(PAGE, limit - out.length), undefined, addr);
        if (pulled.status !== "FOUND" || !pulled.body) break;
        out.push(...decodeMessages(pulled.body, q.brokerName).slice(0, limit - out.length));
        if (pulled.nextBeginOffset <= offset) break;
        offset = pulled.nextBeginOffset;
      }
    }
  }
  return out;
}
