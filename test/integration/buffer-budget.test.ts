/**
 * Item 5: memory a client can pin. Before the buffer budget, 16 connections that never read drove
 * a child's RSS past 1 GB (only a per-connection cap existed), partial 15 MiB frames held open
 * added their full size each, and held pulls were capped by count only. Now everything buffered
 * for clients is charged to one process-wide budget (`serverBufferBytesMax`).
 */
import { expect, test } from "bun:test";
import { encodeFrame, RemotingClient, RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { request } from "../support/frames.ts";
import { silent } from "../support/silent.ts";
import { openRaw, rssMiB } from "./abusers.ts";
import {
  createTopic,
  decodeRecords,
  pullRequest,
  sendRequest,
  startBroker,
  startRocketbun,
  waitFor,
} from "./harness.ts";

const MiB = 1024 * 1024;
/** The budget the servers under test get. */
const BUDGET_BYTES = 32 * MiB;
const ABUSERS = 16;
/**
 * How far the child's RSS may grow over its idle size while abused: the budget, plus garbage not
 * yet collected and the heap's own growth. Unbounded, the same abuse adds about 450 MB.
 */
const RSS_GROWTH_MIB_MAX = 160;

/** Samples `pid`'s RSS until `done` holds; returns the highest sample. */
async function peakRssUntil(pid: number, what: string, done: () => boolean): Promise<number> {
  let peak = 0;
  await waitFor(what, async () => {
    peak = Math.max(peak, await rssMiB(pid));
    return done();
  });
  return peak;
}

test("clients that never read their responses are closed, heaviest first; RSS stays bounded and others are served", async () => {
  await using rb = await startRocketbun({
    name: "rocketbun-budget-out",
    brokerConf: { serverBufferBytesMax: String(BUDGET_BYTES) },
  });
  const good = new RemotingClient({ name: "good", log: silent });
  try {
    await createTopic(good, rb.brokerAddr, "TBig", 1);
    const body = new Uint8Array(MiB).fill(7);
    expect((await good.invoke(rb.brokerAddr, sendRequest({ topic: "TBig", body }))).code).toBe(0);
    const idle = await rssMiB(rb.pid);
    // Each abuser asks for 28 copies of the 1 MiB message (under the 32 MiB per-socket cap) and reads none.
    const pulls = Buffer.concat(
      Array.from({ length: 28 }, () =>
        encodeFrame(pullRequest({ group: "G", topic: "TBig", queueId: 0, offset: 0, maxMsgNums: 1 })),
      ),
    );
    const abusers = await openRaw(rb.brokerAddr, ABUSERS, { pause: true });
    for (const s of abusers.sockets) s.write(pulls);
    const peak = await peakRssUntil(rb.pid, "abusers to be closed", () => abusers.closed >= ABUSERS - 3);
    const pulled = await good.invoke(
      rb.brokerAddr,
      pullRequest({ group: "G", topic: "TBig", queueId: 0, offset: 0 }),
    );
    abusers.closeAll();
    expect({
      growthBounded: peak - idle < RSS_GROWTH_MIB_MAX,
      goodPull: pulled.code,
      bytes: pulled.body?.length,
    }).toEqual({
      growthBounded: true,
      goodPull: ResponseCode.SUCCESS,
      bytes: expect.any(Number),
    });
  } finally {
    await good.shutdown();
  }
});

test("partial 15 MiB frames held open are closed once they fill the budget; RSS stays bounded", async () => {
  await using rb = await startRocketbun({
    name: "rocketbun-budget-partial",
    brokerConf: { serverBufferBytesMax: String(BUDGET_BYTES) },
  });
  const idle = await rssMiB(rb.pid);
  const abusers = await openRaw(rb.brokerAddr, ABUSERS);
  // A length prefix for a 15 MiB frame, then all of it but the last KiB.
  const partial = new Uint8Array(15 * MiB - 1024);
  new DataView(partial.buffer).setInt32(0, 15 * MiB - 4);
  const writes = Promise.allSettled(abusers.sockets.map((s) => abusers.writeAll(s, partial)));
  const peak = await peakRssUntil(rb.pid, "partial frames to be closed", () => abusers.closed >= ABUSERS - 3);
  abusers.closeAll();
  await writes;
  const good = new RemotingClient({ name: "good", log: silent });
  try {
    const info = await good.invoke(rb.brokerAddr, request(RequestCode.GET_BROKER_RUNTIME_INFO));
    expect({ growthBounded: peak - idle < RSS_GROWTH_MIB_MAX, code: info.code }).toEqual({
      growthBounded: true,
      code: ResponseCode.SUCCESS,
    });
  } finally {
    await good.shutdown();
  }
});

test("held pulls are charged to the budget; beyond it a pull is refused SYSTEM_BUSY and others are served", async () => {
  const budget = 8 * MiB;
  await using h = await startBroker({ serverBufferBytesMax: String(budget) });
  const c = h.client();
  await createTopic(c, h.addr, "THeld", 1);
  // A 200 KB subscription (one long tag: many tags would measure tag parsing, not bytes): each
  // held pull is charged about 400 KB, and held pulls may fill half the budget: some 10 fit.
  const subscription = `T${"x".repeat(200_000)}`;
  const abuser = new RemotingClient({ name: "abuser", log: silent });
  try {
    const refused: number[] = [];
    for (let i = 0; i < 100; i++) {
      abuser
        .invoke(
          h.addr,
          pullRequest({ group: "G", topic: "THeld", queueId: 0, offset: 0, subscription, suspendMs: 30_000 }),
          40_000,
        )
        .then(
          (r) => refused.push(r.code),
          () => {}, // the held ones fail when the abuser shuts down
        );
    }
    const longPoll = h.broker.context.longPoll;
    await waitFor("every pull to be held or refused", () => refused.length + longPoll.size === 100);
    const resources = h.broker.server.resources;
    // Another client sends a message the held pulls do not match, and pulls it.
    const sent = await c.invoke(h.addr, sendRequest({ topic: "THeld", body: "still served", tags: "other" }));
    const pulled = await c.invoke(
      h.addr,
      pullRequest({ group: "G2", topic: "THeld", queueId: 0, offset: 0 }),
    );
    expect({
      refusedBusy: refused.length > 0 && refused.every((code) => code === ResponseCode.SYSTEM_BUSY),
      stillHeld: longPoll.size > 0,
      heldWithinShare: longPoll.heldBytes <= budget / 2,
      peakWithinBudget: resources.budget.peak <= budget,
      sent: sent.code,
      pulled: decodeRecords(pulled.body).map((r) => new TextDecoder().decode(r.body)),
    }).toEqual({
      refusedBusy: true,
      stillHeld: true,
      heldWithinShare: true,
      peakWithinBudget: true,
      sent: ResponseCode.SUCCESS,
      pulled: ["still served"],
    });
  } finally {
    await abuser.shutdown();
  }
  await waitFor("the abuser's held pulls to be released", () => h.broker.context.longPoll.size === 0);
  expect(h.broker.server.resources.budget.used).toBe(0);
});
