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

test("oneway requests go out in the caller's turn and give their permit back at once", async () => {
  const { client, conn, server } = await setup({ onewayPermits: 1 });
  const seen: string[] = [];
  server.registry.register(ONEWAY + 1, (req) => {
    seen.push(req.ext("n") ?? "");
    return null;
  });
  // Not awaited in between: the one permit is free again as soon as each call returns.
  const sent = ["a", "b", "c"].map((n) =>
    client.invokeOneway(conn, RemotingCommand.request(ONEWAY + 1, { n }), 0),
  );
  await Promise.all(sent);
  while (seen.length < 3) await Bun.sleep(1);
  expect(seen).toEqual(["a", "b", "c"]);
  await server.stop();
});

test("a oneway request without a permit fails at once or after its wait; a closed connection keeps none", async () => {
  const none = await setup({ onewayPermits: 0 });
  const refused = await none.client
    .invokeOneway(none.conn, RemotingCommand.request(ONEWAY), 0)
    .catch((e: unknown) => e);
  const gaveUp = await none.client
    .invokeOneway(none.conn, RemotingCommand.request(ONEWAY), 30)
    .catch((e: unknown) => e);
  expect([(refused as Error).message, (gaveUp as Error).message]).toEqual([
    "invokeOneway invoke too fast",
    "invokeOneway tryAcquire semaphore timeout, 30ms",
  ]);
  await none.server.stop();

  const one = await setup({ onewayPermits: 1 });
  const other = one.server.acceptInProcess(one.client);
  one.conn.close();
  const closed = await one.client
    .invokeOneway(one.conn, RemotingCommand.request(ONEWAY), 0)
    .catch((e: unknown) => e);
  expect((closed as Error).name).toBe("ConnectionClosedError");
  // The only permit came back: a oneway that will not wait still gets it.
  await one.client.invokeOneway(other, RemotingCommand.request(ONEWAY), 0);
  await one.server.stop();
});
