/**
 * Fault test for the durability of scheduled messages: `rocketbun start` in a child process is
 * killed with SIGKILL while timer and delay-level messages are both pending and being delivered,
 * three times over. Every acknowledged one is delivered after the restarts (none lost); repeats
 * of what was in flight at a kill are allowed.
 */
import { expect, test } from "bun:test";
import { RemotingClient } from "../../src/remoting/index.ts";
import { rng } from "../crash/crash-check.ts";
import { createTopic, silent, startRocketbun, waitFor } from "./harness.ts";
import { records, sendOk } from "./redelivery-support.ts";

const ROUNDS = 3;
const TIMERS_PER_ROUND = 120;
const DELAYED_PER_ROUND = 30;
const text = (b: Uint8Array) => new TextDecoder().decode(b);

test(`timer and delay-level messages survive ${ROUNDS} kill -9s mid-delivery: every acknowledged one is delivered`, async () => {
  await using rb = await startRocketbun({ brokerConf: { messageDelayLevel: "1s 2s 3s" }, name: "rb-kill" });
  const c = new RemotingClient({ name: "it-kill", log: silent });
  const random = rng(17);
  const acked = new Set<string>();
  try {
    await createTopic(c, rb.brokerAddr, "TKill", 1);
    for (let round = 0; round < ROUNDS; round++) {
      const now = Date.now();
      const sends: Promise<unknown>[] = [];
      for (let i = 0; i < TIMERS_PER_ROUND; i++) {
        const body = `r${round}-t${i}`;
        const due = now + 200 + Math.floor(random() * 2500);
        const props = { TIMER_DELIVER_MS: String(due), UNIQ_KEY: body };
        sends.push(
          sendOk(c, rb.brokerAddr, { topic: "TKill", body, properties: props }).then(() => acked.add(body)),
        );
      }
      for (let i = 0; i < DELAYED_PER_ROUND; i++) {
        const body = `r${round}-d${i}`;
        const props = { DELAY: String(1 + (i % 2)), UNIQ_KEY: body };
        sends.push(
          sendOk(c, rb.brokerAddr, { topic: "TKill", body, properties: props }).then(() => acked.add(body)),
        );
      }
      await Promise.all(sends);
      // Kill once about a third of this round is out: the rest is pending or in flight.
      const before = (await records(c, rb.brokerAddr, "TKill")).length;
      const third = Math.floor((TIMERS_PER_ROUND + DELAYED_PER_ROUND) / 3);
      await waitFor(
        "a third delivered",
        async () => (await records(c, rb.brokerAddr, "TKill")).length >= before + third,
      );
      await rb.restart("SIGKILL");
    }
    const all = await waitFor(
      "every acknowledged message delivered",
      async () => {
        const got = await records(c, rb.brokerAddr, "TKill");
        const bodies = new Set(got.map((m) => text(m.body)));
        return [...acked].every((b) => bodies.has(b)) ? got : undefined;
      },
      30_000,
    );
    const bodies = all.map((m) => text(m.body));
    // Repeats are allowed (what was in flight at a kill); the last run here saw none.
    expect({ lost: [...acked].filter((b) => !bodies.includes(b)), acked: acked.size }).toEqual({
      lost: [],
      acked: ROUNDS * (TIMERS_PER_ROUND + DELAYED_PER_ROUND),
    });
  } finally {
    await c.shutdown();
  }
});
