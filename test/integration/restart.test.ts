/**
 * Restart safety: the broker is stopped and started again while producers keep sending (in-process on
 * the same store dir, and `rocketbun start` stopped with SIGTERM). Every acknowledged message is
 * stored where its acknowledgement said, and committed consumer offsets are answered again.
 */
import { expect, test } from "bun:test";
import { RemotingClient as Client, type RemotingClient, RequestCode } from "../../src/remoting/index.ts";
import {
  createRoutedTopic,
  createTopic,
  decodeRecords,
  pullRequest,
  request,
  sendRequest,
  silent,
  startBroker,
  startRocketbun,
} from "./harness.ts";

const QUEUES = 4;

interface Acked {
  body: string;
  queueId: number;
  queueOffset: number;
}

/**
 * `workers` senders, each sending one message after another until `total` are acknowledged; a send
 * that fails (broker down) is retried with a new body after a short pause. `onAcked` runs after each
 * acknowledgement, so the test can restart the broker at a given count.
 */
async function traffic(
  c: RemotingClient,
  addr: string,
  topic: string,
  total: number,
  onAcked: (n: number) => void,
): Promise<{ acked: Acked[]; failures: number }> {
  const acked: Acked[] = [];
  let attempts = 0;
  let failures = 0;
  const worker = async (w: number) => {
    while (acked.length < total) {
      const body = `w${w}-${attempts++}`;
      const queueId = attempts % QUEUES;
      const r = await c.invoke(addr, sendRequest({ topic, body, queueId }), 1_000).catch(() => null);
      if (r?.code === 0) {
        acked.push({ body, queueId, queueOffset: Number(r.extFields!.queueOffset) });
        onAcked(acked.length);
      } else {
        failures++;
        await Bun.sleep(5);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
  return { acked, failures };
}

/** Every stored message of `topic`, read by pulling each queue from 0. */
async function storedMessages(c: RemotingClient, addr: string, topic: string): Promise<Map<string, Acked>> {
  const stored = new Map<string, Acked>();
  for (let queueId = 0; queueId < QUEUES; queueId++) {
    for (let offset = 0; ; ) {
      const r = await c.invoke(addr, pullRequest({ group: "CHECK", topic, queueId, offset }));
      if (r.code !== 0) break;
      for (const rec of decodeRecords(r.body)) {
        const body = new TextDecoder().decode(rec.body);
        stored.set(body, { body, queueId: rec.queueId, queueOffset: rec.queueOffset });
      }
      offset = Number(r.extFields!.nextBeginOffset);
    }
  }
  return stored;
}

async function commitAndQuery(c: RemotingClient, addr: string, topic: string, commit: boolean) {
  const offsets = [];
  for (let queueId = 0; queueId < QUEUES; queueId++) {
    const q = { consumerGroup: "RG", topic, queueId: String(queueId) };
    if (commit) {
      await c.invoke(
        addr,
        request(RequestCode.UPDATE_CONSUMER_OFFSET, { ...q, commitOffset: String(queueId + 1) }),
      );
    }
    offsets.push((await c.invoke(addr, request(RequestCode.QUERY_CONSUMER_OFFSET, q))).extFields?.offset);
  }
  return offsets;
}

function lost(acked: Acked[], stored: Map<string, Acked>): Acked[] {
  return acked.filter((a) => {
    const s = stored.get(a.body);
    return !s || s.queueId !== a.queueId || s.queueOffset !== a.queueOffset;
  });
}

test("an in-process broker restarted mid-traffic on the same store loses no acknowledged message", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TRestart", QUEUES);
  const before = await commitAndQuery(c, h.addr, "TRestart", true);
  let restarting: Promise<void> | null = null;
  const { acked, failures } = await traffic(c, h.addr, "TRestart", 600, (n) => {
    if (n === 200) restarting = h.restart();
  });
  await restarting;
  const stored = await storedMessages(c, h.addr, "TRestart");
  console.log(
    `in-process restart: ${acked.length} acknowledged, ${stored.size} stored, ${failures} failed sends`,
  );
  expect({
    lost: lost(acked, stored),
    offsets: await commitAndQuery(c, h.addr, "TRestart", false),
  }).toEqual({ lost: [], offsets: before });
  expect(before).toEqual(["1", "2", "3", "4"]);
});

test("rocketbun start stopped with SIGTERM mid-traffic and started again loses no acknowledged message", async () => {
  await using rb = await startRocketbun();
  await createRoutedTopic(rb, "TSigterm", QUEUES);
  const c = new Client({ name: "it-restart", log: silent });
  try {
    const before = await commitAndQuery(c, rb.brokerAddr, "TSigterm", true);
    let restarting: Promise<void> | null = null;
    const { acked, failures } = await traffic(c, rb.brokerAddr, "TSigterm", 600, (n) => {
      if (n === 200) restarting = rb.restart();
    });
    await restarting;
    const stored = await storedMessages(c, rb.brokerAddr, "TSigterm");
    console.log(
      `SIGTERM restart: ${acked.length} acknowledged, ${stored.size} stored, ${failures} failed sends`,
    );
    expect({
      lost: lost(acked, stored),
      offsets: await commitAndQuery(c, rb.brokerAddr, "TSigterm", false),
    }).toEqual({ lost: [], offsets: before });
  } finally {
    await c.shutdown();
  }
});
