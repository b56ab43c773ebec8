/**
 * Client test harness: a real NameServer and one or more fake brokers on 127.0.0.1 port 0, and a
 * helper that waits on a condition (no sleeps: it re-checks when the event loop has run).
 */
import { MQClientError } from "../../src/client/index.ts";
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

export { waitFor } from "../support/rocketbun-child.ts";

/** What a call that should be refused came to: [code, remark] of its MQClientError, else "accepted" or the other error. */
export function refusal(p: Promise<unknown>): Promise<string | [number, string]> {
  return p.then(
    () => "accepted",
    (e: unknown) => (e instanceof MQClientError ? [e.code, e.remark] : String(e)),
  );
}
