/**
 * `rocketbun start --tls-dev`: the development certificate is made under the home on the first
 * start and reused on the next (same fingerprint), its path and fingerprint are printed, and a
 * client that trusts that file talks TLS to both ports while plaintext still works (permissive).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { join } from "node:path";
import { createAdmin } from "../../src/client/index.ts";
import { silent } from "../support/silent.ts";
import { type StartedCli, startRocketbun } from "./harness.ts";

let rb: StartedCli;
beforeAll(async () => {
  rb = await startRocketbun({ name: "rocketbun-tls-dev", args: ["--tls-dev"] });
});
afterAll(() => rb?.stop());

/** The path and fingerprint the start printed. */
function printed(output: string): { path: string; fingerprint: string; how: string } {
  const path = /for development only\), (made now \(none yet\)|reused): (\S+)/.exec(output);
  const fingerprint = /SHA-256 fingerprint ([0-9A-F:]+),/.exec(output);
  return { how: path?.[1] ?? "", path: path?.[2] ?? "", fingerprint: fingerprint?.[1] ?? "" };
}

test("the first start makes the certificate under <home>/tls/ and prints its path and fingerprint", async () => {
  const shown = printed(rb.bootOutput);
  const cert = new X509Certificate(await Bun.file(join(rb.home, "tls", "dev-cert.pem")).text());
  expect(shown).toEqual({
    how: "made now (none yet)",
    path: join(rb.home, "tls", "dev-cert.pem"),
    fingerprint: cert.fingerprint256,
  });
});

test("a client trusting the printed file uses TLS; a plaintext client is still served", async () => {
  const ca = await Bun.file(printed(rb.bootOutput).path).text();
  const secure = await createAdmin({ namesrvAddr: rb.namesrvAddr, log: silent, tls: { ca } });
  const plain = await createAdmin({ namesrvAddr: rb.namesrvAddr, log: silent });
  try {
    const [overTls, overPlain] = await Promise.all([secure.clusterList(), plain.clusterList()]);
    expect(overTls).toEqual(overPlain);
    // The broker's port too: runtime info asked over TLS.
    const runtime = await secure.brokerRuntimeInfo(rb.brokerAddr);
    expect(runtime.size).toBeGreaterThan(0);
  } finally {
    await secure.shutdown();
    await plain.shutdown();
  }
});

test("the next start reuses it: same fingerprint, printed as reused", async () => {
  const first = printed(rb.bootOutput);
  await rb.restart();
  expect(printed(rb.bootOutput)).toEqual({ ...first, how: "reused" });
});
