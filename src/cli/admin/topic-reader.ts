/**
 * Reads every message of a topic, queue by queue from its minimum to its maximum offset, without
 * committing anything: what the DLQ and transaction verbs show or resend.
 */
import type { Admin, MessageExt } from "../../client/index.ts";
import { decodeMessages } from "../../client/message.ts";
import type { MessageQueue } from "../../client/message-queue.ts";
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
    for (let queueId = 0; queueId < q.readQueueNums && out.length < limit; queueId++) {
      const mq = { topic, brokerName: q.brokerName, queueId };
      const from = await api.minOffset(addr, topic, queueId);
      const to = await api.maxOffset(addr, topic, queueId);
      out.push(...(await readQueue(admin, addr, mq, from, to, limit - out.length)));
    }
  }
  return out;
}

/** Up to `limit` messages of one queue at `addr`, from offset `from` to `to` (exclusive). */
export async function readQueue(
  admin: Admin,
  addr: string,
  mq: MessageQueue,
  from: number,
  to: number,
  limit = Number.MAX_SAFE_INTEGER,
): Promise<MessageExt[]> {
  const out: MessageExt[] = [];
  let offset = from;
  while (offset < to && out.length < limit) {
    const pulled = await admin.pullFrom(mq, offset, Math.min(PAGE, limit - out.length), undefined, addr);
    if (pulled.status !== "FOUND" || !pulled.body) break;
    out.push(
      ...decodeMessages(pulled.body, mq.brokerName)
        .filter((m) => m.queueOffset < to)
        .slice(0, limit - out.length),
    );
    if (pulled.nextBeginOffset <= offset) break;
    offset = pulled.nextBeginOffset;
  }
  return out;
}
