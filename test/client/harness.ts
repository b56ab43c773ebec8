/**
 * Client test harness: a real NameServer and one or more fake brokers on 127.0.0.1 port 0, and a
 * helper that waits on a condition (no sleeps: it re-checks when the event loop has run).
 */
import { startNameServer } from "../namesrv/harness.ts";
import { FakeBroker, type FakeBrokerOptions } from "./fake-broker.ts";

export interface Cluster extends AsyncDisposable {
  namesrvAddr: string;
  namesrv: Awaited<ReturnType<typeof startNameServer>>["ns"];
  brokers: FakeBroker[];
  broker: FakeBroker;
}

export async function startCluster(
  brokers: Omit<FakeBrokerOptions, "namesrvAddr">[] = [{}],
): Promise<Cluster> {
  const ns = await startNameServer();
  const started: FakeBroker[] = [];
  for (const [i, b] of brokers.entries()) {
    const broker = new FakeBroker({ brokerName: `broker-${"abcdef"[i]}`, ...b, namesrvAddr: ns.addr });
    await broker.start();
    started.push(broker);
  }
  return {
    namesrvAddr: ns.addr,
    namesrv: ns.ns,
    brokers: started,
    broker: started[0]!,
    async [Symbol.asyncDispose]() {
      for (const b of started) await b.stop();
      await ns[Symbol.asyncDispose]();
    },
  };
}

/**
 * Resolves once `check` returns a truthy value, re-checking after every macrotask turn; rejects
 * with `what` after `limitMs` so a broken invariant fails the test instead of hanging it.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  limitMs = 20_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
