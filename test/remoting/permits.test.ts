import { expect, test } from "bun:test";
import {
  RemotingCommand,
  RemotingEndpoint,
  RemotingServer,
  ResponseCode,
  TooManyRequestsError,
} from "../../src/remoting/index.ts";
import { silent } from "./rpc.case.ts";

const HOLD = 2001;
const ONEWAY = 2002;

async function setup(permits: { asyncPermits?: number; onewayPermits?: number }) {
  const release: (() => void)[] = [];
  const server = new RemotingServer({ name: "permits", listenPort: 0, log: silent });
  server.registry.register(
    HOLD,
    () =>
      new Promise((resolve) => release.push(() => resolve(RemotingCommand.response(ResponseCode.SUCCESS)))),
  );
  server.registry.register(ONEWAY, () => null);
  const client = new RemotingEndpoint({ name: "client", log: silent, ...permits });
  const conn = server.acceptInProcess(client);
  const held = async (n: number) => {
    while (release.length < n) await Bun.sleep(1);
  };
  return { server, client, conn, release, held };
}

test("async requests beyond the permit count fail at once when the caller will not wait", async () => {
  const { client, conn, release, held, server } = await setup({ asyncPermits: 2 });
  const first = client.invoke(conn, RemotingCommand.request(HOLD), 5000);
  const second = client.invoke(conn, RemotingCommand.request(HOLD), 5000);
  await held(2);
  const refused = await client.invoke(conn, RemotingCommand.request(HOLD), 0).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(TooManyRequestsError);
  expect((refused as Error).message).toBe("invoke invoke too fast");
  for (const r of release.splice(0)) r();
  expect([(await first).code, (await second).code]).toEqual([0, 0]);
  await server.stop();
});

test("a request waiting for a permit runs as soon as one is released, and times out otherwise", async () => {
  const { client, conn, release, held, server } = await setup({ asyncPermits: 1 });
  const first = client.invoke(conn, RemotingCommand.request(HOLD), 5000);
  await held(1);
  const waiting = client.invoke(conn, RemotingCommand.request(HOLD), 5000);
  const gaveUp = await client.invoke(conn, RemotingCommand.request(HOLD), 30).catch((e: unknown) => e);
  expect((gaveUp as Error).message).toBe("invoke tryAcquire semaphore timeout, 30ms");
  release.shift()!();
  expect((await first).code).toBe(0);
  await held(1);
  release.shift()!();
  expect((await waiting).code).toBe(0);
  await server.stop();
});

test("the permit of a timed-out request is returned", async () => {
  const { client, conn, held, server } = await setup({ asyncPermits: 1 });
  const lost = await client.invoke(conn, RemotingCommand.request(HOLD), 30).catch((e: unknown) => e);
  expect((lost as Error).name).toBe("RemotingTimeoutError");
  await held(1);
  // The only permit is free again: a request that will not wait still gets one.
  const again = client.invoke(conn, RemotingCommand.request(HOLD), 0);
  await held(2);
  expect(await Promise.race([again.then(() => "answered"), Bun.sleep(5).then(() => "in flight")])).toBe(
    "in flight",
  );
  await server.stop();
  expect(await again.catch((e: Error) => e.name)).toBe("ConnectionClosedError");
});
