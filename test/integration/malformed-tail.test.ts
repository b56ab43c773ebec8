/**
 * Item 7: whole frames followed by a malformed length in the same TCP read. Netty's decoder passes
 * on every frame before the bad one, then closes; before the fix the broker dropped them all.
 */
import { expect, test } from "bun:test";
import { encodeFrame, RemotingCommand, RemotingServer, ResponseCode } from "../../src/remoting/index.ts";
import { waitFor } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";
import { createTopic, decodeRecords, pullRequest, sendRequest, startBroker } from "./harness.ts";
import { rawClient } from "./raw-client.ts";

/** A length prefix no frame may have (negative), and a few bytes after it. */
const BAD_LENGTH = Uint8Array.of(0xff, 0xff, 0xff, 0xfb, 0, 0, 0, 0);

test("frames before a bad length in the same write are served (both sends are stored), then the connection closes", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TTail", 1);
  await using raw = await rawClient(h.addr);
  const first = sendRequest({ topic: "TTail", body: "first" });
  first.opaque = 1;
  const second = sendRequest({ topic: "TTail", body: "second" });
  second.opaque = 2;
  await raw.write(Buffer.concat([encodeFrame(first), encodeFrame(second), BAD_LENGTH]));
  await raw.closed;
  // A record is visible once written, which may come a moment after the close.
  const pulled = await waitFor("both records", async () => {
    const r = await c.invoke(h.addr, pullRequest({ group: "G", topic: "TTail", queueId: 0, offset: 0 }));
    return decodeRecords(r.body).length >= 2 ? r : undefined;
  });
  expect(decodeRecords(pulled.body).map((r) => new TextDecoder().decode(r.body))).toEqual([
    "first",
    "second",
  ]);
});

test("answers the frames before a bad length already produced are written before the close", async () => {
  const ECHO = 1001;
  const server = new RemotingServer({ name: "tail", listenPort: 0, bindAddress: "127.0.0.1", log: silent });
  server.registry.register(ECHO, (req) =>
    RemotingCommand.response(ResponseCode.SUCCESS, req.ext("n") ?? null),
  );
  await server.start();
  try {
    await using raw = await rawClient(`127.0.0.1:${server.port}`);
    const echo = (n: number) => Object.assign(RemotingCommand.request(ECHO, { n: String(n) }), { opaque: n });
    await raw.write(Buffer.concat([encodeFrame(echo(1)), encodeFrame(echo(2)), BAD_LENGTH]));
    await raw.closed;
    expect(raw.received.map((r) => ({ opaque: r.opaque, code: r.code, remark: r.remark }))).toEqual([
      { opaque: 1, code: ResponseCode.SUCCESS, remark: "1" },
      { opaque: 2, code: ResponseCode.SUCCESS, remark: "2" },
    ]);
  } finally {
    await server.stop();
  }
});
