import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  decodeFrame,
  encodeFrame,
  FrameDecoder,
  RemotingClient,
  RemotingCommand,
  RemotingServer,
  ResponseCode,
} from "../../src/remoting/index.ts";
import { silent } from "./rpc.case.ts";

const ECHO = 1001;
const BIG = 1002;

/** A raw TCP peer that records the frames it receives and whether it was closed. */
async function rawPeer(port: number) {
  const decoder = new FrameDecoder();
  const received: RemotingCommand[] = [];
  let closed = false;
  let wake: () => void = () => {};
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_s, chunk) {
        for (const frame of decoder.push(chunk)) received.push(decodeFrame(frame));
        wake();
      },
      close() {
        closed = true;
        wake();
      },
    },
  });
  const until = async (cond: () => boolean) => {
    while (!cond()) await new Promise<void>((resolve) => (wake = resolve));
  };
  return { socket, received, until, isClosed: () => closed };
}

describe("TCP transport", () => {
  let server: RemotingServer;
  beforeAll(async () => {
    server = new RemotingServer({
      name: "tcp",
      listenPort: 0,
      bindAddress: "127.0.0.1",
      log: silent,
      idleSeconds: 1,
    });
    server.registry.register(ECHO, (req) =>
      RemotingCommand.response(ResponseCode.SUCCESS, null, req.extFields, req.body),
    );
    server.registry.register(BIG, (req) =>
      RemotingCommand.response(
        ResponseCode.SUCCESS,
        null,
        req.extFields,
        new Uint8Array(4 * 1024 * 1024).fill(Number(req.ext("fill"))),
      ),
    );
    await server.start();
  });
  afterAll(() => server.stop());

  test("a malformed frame closes that connection only; others keep being served", async () => {
    const good = await rawPeer(server.port);
    const bad = await rawPeer(server.port);
    const garbage = new Uint8Array(8);
    new DataView(garbage.buffer).setInt32(0, 0x7fffff00);
    bad.socket.write(garbage);
    await bad.until(bad.isClosed);
    good.socket.write(
      encodeFrame(new RemotingCommand({ code: ECHO, opaque: 5, extFields: { still: "here" } })),
    );
    await good.until(() => good.received.length === 1);
    expect(good.received[0]!.extFields).toEqual({ still: "here" });
    good.socket.end();
  });

  test("a JSON header that is not JSON closes the connection without a response", async () => {
    const peer = await rawPeer(server.port);
    const header = new TextEncoder().encode("{not json");
    const frame = new Uint8Array(8 + header.length);
    new DataView(frame.buffer).setInt32(0, 4 + header.length);
    new DataView(frame.buffer).setInt32(4, header.length);
    frame.set(header, 8);
    peer.socket.write(frame);
    await peer.until(peer.isClosed);
    expect(peer.received).toEqual([]);
  });

  test("large responses arrive whole and in order through partial writes and drain", async () => {
    const client = new RemotingClient({ name: "big", log: silent });
    const addr = `127.0.0.1:${server.port}`;
    const responses = await Promise.all(
      [1, 2, 3, 4, 5].map((fill) =>
        client.invoke(addr, RemotingCommand.request(BIG, { fill: String(fill) }), 20_000),
      ),
    );
    expect(responses.map((r) => [r.body!.length, r.body![0], r.body![r.body!.length - 1]])).toEqual(
      [1, 2, 3, 4, 5].map((fill) => [4 * 1024 * 1024, fill, fill]),
    );
    await client.shutdown();
  });

  test("the client pool reconnects after the server drops the connection", async () => {
    const client = new RemotingClient({ name: "pool", log: silent });
    const addr = `127.0.0.1:${server.port}`;
    const first = await client.connection(addr);
    expect((await client.invoke(addr, RemotingCommand.request(ECHO))).code).toBe(0);
    for (const conn of server.connections) conn.close("test drops everyone");
    while (!first.closed) await Bun.sleep(1);
    expect((await client.invoke(addr, RemotingCommand.request(ECHO, { n: "2" }))).extFields).toEqual({
      n: "2",
    });
    expect(await client.connection(addr)).not.toBe(first);
    await client.shutdown();
  });

  test("an idle connection is closed after serverChannelMaxIdleTimeSeconds", async () => {
    const peer = await rawPeer(server.port);
    const started = Date.now();
    await peer.until(peer.isClosed);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  test("only quiet counts as idle: a connection with traffic outlives the limit, then closes once quiet", async () => {
    // Bun's socket timeout is a deadline that traffic does not move; the connection re-arms it.
    // Its timer ticks every 4 s, so with a 1 s limit the first deadline comes after about 4 s.
    const busy = await rawPeer(server.port);
    const quiet = await rawPeer(server.port);
    const started = Date.now();
    let sent = 0;
    while (Date.now() - started < 6000) {
      busy.socket.write(encodeFrame(RemotingCommand.request(ECHO, { n: String(sent++) })));
      await Bun.sleep(250);
    }
    expect({ quiet: quiet.isClosed(), busy: busy.isClosed() }).toEqual({ quiet: true, busy: false });
    await busy.until(() => busy.received.length === sent);
    const fellQuiet = Date.now();
    await busy.until(busy.isClosed);
    expect(Date.now() - fellQuiet).toBeGreaterThanOrEqual(900);
  }, 30_000);

  test("listening on a port in use fails naming the server, the address and the cause", async () => {
    const second = new RemotingServer({
      name: "second",
      listenPort: server.port,
      bindAddress: "127.0.0.1",
      log: silent,
    });
    await expect(second.start()).rejects.toThrow(
      `second: cannot listen on 127.0.0.1:${server.port}: address already in use`,
    );
  });

  test("connecting to a closed port fails with an error naming the address", async () => {
    const client = new RemotingClient({ name: "nowhere", log: silent });
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    const err = await client
      .invoke(`127.0.0.1:${port}`, RemotingCommand.request(ECHO))
      .catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(`connect to 127.0.0.1:${port} failed`);
    await client.shutdown();
  });
});
