/**
 * Item 3: a client that opens more connections than the process has descriptors for. The child
 * `rocketbun start` runs under `prlimit --nofile`; before the fix, accept() failed with EMFILE and
 * Bun's accept loop retried at once, forever (100% CPU), and no connection was ever refused.
 */
import { describe, expect, test } from "bun:test";
import { RemotingClient, RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { request } from "../support/frames.ts";
import { silent } from "../support/silent.ts";
import { cpuSeconds, openRaw } from "./abusers.ts";
import { startRocketbun, waitFor } from "./harness.ts";

/** The child's descriptor limit: a dozen for Bun and the store, the rest for connections. */
const OPEN_FILES = 160;
/** Connections the abuser opens: well past the limit. */
const ABUSIVE_CONNECTIONS = 260;
/** How long the held state is watched for spinning. */
const HELD_WINDOW_MS = 1_500;
/** CPU share the child may use while the abuser holds its connections (a spin is ~100%). */
const HELD_CPU_SHARE_MAX = 0.3;

/** CPU seconds the child burns over HELD_WINDOW_MS while nothing changes. */
async function cpuWhileHeld(pid: number): Promise<number> {
  const before = await cpuSeconds(pid);
  // A measurement window, not a wait for an event: the point is what happens while nothing does.
  await Bun.sleep(HELD_WINDOW_MS);
  return (await cpuSeconds(pid)) - before;
}

/** Both servers answer a fresh client (retrying until the server accepts again). */
async function servesFreshClient(namesrvAddr: string, brokerAddr: string): Promise<number[]> {
  const client = new RemotingClient({ name: "fresh", log: silent });
  try {
    return await waitFor("a fresh client to be served", async () => {
      try {
        const route = await client.invoke(
          namesrvAddr,
          request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: "NoSuchTopic" }),
          1000,
        );
        const info = await client.invoke(brokerAddr, request(RequestCode.GET_BROKER_RUNTIME_INFO), 1000);
        return [route.code, info.code];
      } catch {
        return undefined;
      }
    });
  } finally {
    await client.shutdown();
  }
}

describe(`rocketbun start under prlimit --nofile=${OPEN_FILES}`, () => {
  test("connections beyond the default cap are closed at once; the process does not spin and serves again", async () => {
    await using rb = await startRocketbun({
      name: "rocketbun-fd-cap",
      launcher: ["prlimit", `--nofile=${OPEN_FILES}:${OPEN_FILES}`],
    });
    const abuser = await openRaw(rb.brokerAddr, ABUSIVE_CONNECTIONS);
    // Whatever the cap, no more than OPEN_FILES connections can be open in the child.
    await waitFor(
      "the server to refuse what it cannot hold",
      () => abuser.closed >= ABUSIVE_CONNECTIONS - OPEN_FILES,
    );
    const cpu = await cpuWhileHeld(rb.pid);
    const refused = abuser.closed;
    abuser.closeAll();
    const codes = await servesFreshClient(rb.namesrvAddr, rb.brokerAddr);
    expect({ spun: cpu > (HELD_WINDOW_MS / 1000) * HELD_CPU_SHARE_MAX, codes }).toEqual({
      spun: false,
      codes: [ResponseCode.TOPIC_NOT_EXIST, ResponseCode.SUCCESS],
    });
    // The default cap (160 less a reserve of 64) keeps the child below its limit.
    expect(refused).toBeGreaterThanOrEqual(ABUSIVE_CONNECTIONS - (OPEN_FILES - 64));
  });

  test("with a cap above the limit, running out of descriptors pauses listening instead of spinning", async () => {
    await using rb = await startRocketbun({
      name: "rocketbun-fd-exhausted",
      launcher: ["prlimit", `--nofile=${OPEN_FILES}:${OPEN_FILES}`],
      brokerConf: { serverConnectionsMax: "100000" },
    });
    const abuser = await openRaw(rb.brokerAddr, ABUSIVE_CONNECTIONS);
    // Connections queued when the listener closes are reset: the sign the pause happened.
    await waitFor("the listener to pause", () => abuser.closed >= ABUSIVE_CONNECTIONS - OPEN_FILES);
    const cpu = await cpuWhileHeld(rb.pid);
    abuser.closeAll();
    const codes = await servesFreshClient(rb.namesrvAddr, rb.brokerAddr);
    expect({ spun: cpu > (HELD_WINDOW_MS / 1000) * HELD_CPU_SHARE_MAX, codes }).toEqual({
      spun: false,
      codes: [ResponseCode.TOPIC_NOT_EXIST, ResponseCode.SUCCESS],
    });
  });
});
