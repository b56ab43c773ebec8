import pino from "pino";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBroker } from "/work/wt-pop/broker/index.ts";
import { brokerConfig } from "/work/wt-pop/test/integration/harness.ts";
import { encodeBatch } from "/work/wt-pop/src/protocol/message/index.ts";
import { RemotingClient } from "/work/wt-pop/src/remoting/index.ts";
import { batchAckRequest, poppedCount, popRequest } from "/work/wt-pop/bench/lib/pop-requests.ts";
import { BODY, createTopic, ok, pullRequest, sendRequest } from "/work/wt-pop/bench/lib/requests.ts";
const log = pino({ level: "warn" });
const dir = await mkdtemp(join(tmpdir(), "popprof-"));
const port = 30000 + Math.floor(Math.random() * 20000);
const b = createBroker(await brokerConfig(dir, port), { log });
await b.start();
const addr = `127.0.0.1:${port}`;
const c = new RemotingClient({ name: "p", log });
await createTopic(c, addr, "T", 8);
const batch = encodeBatch(Array.from({ length: 32 }, () => ({ flag: 0, body: BODY, properties: "TAGS\u0001bench\u0002" })));
const N = Number(process.env.N ?? 50000);
let next = 0;
await Promise.all(Array.from({ length: 8 }, async () => { for (let i = next++; i < N / 32; i = next++) await ok(c.invoke(addr, sendRequest("T", i % 8, batch, true))); }));
for (let round = 0; round < 2; round++) {
let acked = 0; const t = performance.now();
const group = `G${round}`;
await Promise.all(Array.from({ length: 8 }, async () => {
  let pending: Promise<unknown> = Promise.resolve();
  while (acked < N) {
    const r = await c.invoke(addr, popRequest(group, "T", 60000));
    if (r.code !== 0) break;
    const n = poppedCount(r);
    if (process.env.PIPE === "1") { await pending; pending = ok(c.invoke(addr, batchAckRequest(group, "T", r))); }
    else if (process.env.NOACK !== "1") await ok(c.invoke(addr, batchAckRequest(group, "T", r)));
    acked += n;
  }
}));
console.log("pop rate", Math.round(acked * 1000 / (performance.now() - t)));
let got = 0; const t2 = performance.now();
await Promise.all(Array.from({ length: 8 }, async (_, q) => { let o = 0; for (;;) { const r = await c.invoke(addr, pullRequest("T", q, o)); if (r.code !== 0) break; const nx = Number(r.extFields!.nextBeginOffset); got += nx - o; o = nx; } }));
console.log("pull rate", Math.round(got * 1000 / (performance.now() - t2)));
}
await c.shutdown(); await b.stop();
process.exit(0);
