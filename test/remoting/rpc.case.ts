/**
 * The RPC conformance suite, run once per transport (TCP, in-process objects, in-process round trip):
 * every transport must behave the same to the endpoints above it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  type Connection,
  ConnectionClosedError,
  ProcessorRegistry,
  RemotingCommand,
  RemotingEndpoint,
  RemotingError,
  RemotingTimeoutError,
  ResponseCode,
} from "../../src/remoting/index.ts";

import { silent } from "../support/silent.ts";

export { silent };

export interface RpcHarness {
  /** The server's registry: processors are registered before connections are opened. */
  serverRegistry: ProcessorRegistry;
  server: RemotingEndpoint;
  /** Opens a fresh connection served by `client` on the calling side. */
  connect(client: RemotingEndpoint): Promise<Connection>;
  close(): Promise<void>;
}

export const Codes = {
  ECHO: 1001,
  FAIL: 1002,
  BOOM: 1003,
  SLOW: 1004,
  HELLO: 1005,
  SILENT: 1006,
  ONEWAY: 1007,
};

export function runRpcSuite(
  name: string,
  makeHarness: (registry: ProcessorRegistry) => Promise<RpcHarness>,
): void {
  describe(`remoting over ${name}`, () => {
    let h: RpcHarness;
    let client: RemotingEndpoint;
    let conn: Connection;
    const onewaySeen: string[] = [];
    let onewayArrived: () => void = () => {};
    const helloConnections: Connection[] = [];
    const releaseSlow: (() => void)[] = [];

    beforeAll(async () => {
      const registry = new ProcessorRegistry().defineLane("slow", { concurrency: 1, queueMax: 1 });
      registry.registerAll([
        [Codes.ECHO, (req) => RemotingCommand.response(ResponseCode.SUCCESS, null, req.extFields, req.body)],
        [
          Codes.FAIL,
          () => {
            throw new RemotingError(
              ResponseCode.TOPIC_NOT_EXIST,
              "No topic route info in name server for the topic: X",
            );
          },
        ],
        [
          Codes.BOOM,
          async () => {
            throw new TypeError("kaput");
          },
        ],
        [
          Codes.SLOW,
          {
            lane: "slow",
            process: () =>
              new Promise((resolve) =>
                releaseSlow.push(() => resolve(RemotingCommand.response(ResponseCode.SUCCESS))),
              ),
          },
        ],
        [
          Codes.HELLO,
          (_req, ctx) => {
            helloConnections.push(ctx.connection);
            return RemotingCommand.response(ResponseCode.SUCCESS);
          },
        ],
        [Codes.SILENT, () => null],
        [
          Codes.ONEWAY,
          (req) => {
            onewaySeen.push(req.ext("n") ?? "");
            onewayArrived();
            return RemotingCommand.response(ResponseCode.SUCCESS);
          },
        ],
      ]);
      h = await makeHarness(registry);
      client = new RemotingEndpoint({ name: "test-client", log: silent, scanIntervalMs: 10 });
      client.registry.register(Codes.ECHO, (req) =>
        RemotingCommand.response(ResponseCode.SUCCESS, "from client", req.extFields),
      );
      conn = await h.connect(client);
    });

    afterAll(async () => {
      conn.close();
      await h.close();
    });

    test("a sync request gets its own response", async () => {
      const response = await client.invoke(
        conn,
        RemotingCommand.request(Codes.ECHO, { k: "v" }, new Uint8Array([1, 2, 3])),
        1000,
      );
      expect({
        code: response.code,
        ext: response.extFields,
        body: [...(response.body ?? [])],
        response: response.isResponse,
      }).toEqual({
        code: 0,
        ext: { k: "v" },
        body: [1, 2, 3],
        response: true,
      });
    });

    test("the async form calls back once with the response", async () => {
      const response = await new Promise<RemotingCommand>((resolve, reject) =>
        client.invokeAsync(conn, RemotingCommand.request(Codes.ECHO, { a: "1" }), 1000, (err, res) =>
          err ? reject(err) : resolve(res!),
        ),
      );
      expect(response.extFields).toEqual({ a: "1" });
    });

    test("a oneway request runs on the server and gets no response", async () => {
      const arrived = new Promise<void>((resolve) => {
        onewayArrived = resolve;
      });
      await client.invokeOneway(conn, RemotingCommand.request(Codes.ONEWAY, { n: "first" }), 1000);
      await arrived;
      // A request sent after the oneway one is answered, and no stray response was matched meanwhile.
      await client.invoke(conn, RemotingCommand.request(Codes.ECHO), 1000);
      expect(onewaySeen).toEqual(["first"]);
      expect(client.responses.size).toBe(0);
    });

    test("an unknown code answers REQUEST_CODE_NOT_SUPPORTED with Java's remark", async () => {
      const response = await client.invoke(conn, RemotingCommand.request(4242), 1000);
      expect({ code: response.code, remark: response.remark }).toEqual({
        code: ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
        remark: " request type 4242 not supported",
      });
    });

    test("a RemotingError answers its own code and remark", async () => {
      const response = await client.invoke(conn, RemotingCommand.request(Codes.FAIL), 1000);
      expect({ code: response.code, remark: response.remark }).toEqual({
        code: ResponseCode.TOPIC_NOT_EXIST,
        remark: "No topic route info in name server for the topic: X",
      });
    });

    test("any other throw answers SYSTEM_ERROR with the message", async () => {
      const response = await client.invoke(conn, RemotingCommand.request(Codes.BOOM), 1000);
      expect({ code: response.code, remark: response.remark }).toEqual({
        code: ResponseCode.SYSTEM_ERROR,
        remark: "TypeError: kaput",
      });
    });

    test("a full lane answers SYSTEM_BUSY and the others still run", async () => {
      const first = client.invoke(conn, RemotingCommand.request(Codes.SLOW), 2000);
      const queued = client.invoke(conn, RemotingCommand.request(Codes.SLOW), 2000);
      const refused = await client.invoke(conn, RemotingCommand.request(Codes.SLOW), 2000);
      expect({ code: refused.code, remark: refused.remark }).toEqual({
        code: ResponseCode.SYSTEM_BUSY,
        remark: "[OVERLOAD]system busy, start flow control for a while",
      });
      expect((await client.invoke(conn, RemotingCommand.request(Codes.ECHO), 1000)).code).toBe(0);
      releaseSlow.shift()!();
      expect((await first).code).toBe(0);
      while (releaseSlow.length === 0) await Bun.sleep(1);
      releaseSlow.shift()!();
      expect((await queued).code).toBe(0);
    });

    test("a request nobody answers times out with an error naming code, address and timeout", async () => {
      const err = await client
        .invoke(conn, RemotingCommand.request(Codes.SILENT), 50)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RemotingTimeoutError);
      const timeout = err as RemotingTimeoutError;
      expect({ code: timeout.code, addr: timeout.addr, timeoutMs: timeout.timeoutMs }).toEqual({
        code: Codes.SILENT,
        addr: conn.remoteAddress,
        timeoutMs: 50,
      });
      expect(timeout.message).toContain(`to ${conn.remoteAddress} timed out after 50 ms`);
      expect(client.responses.size).toBe(0);
    });

    test("the server can send a request to a connected client, which answers from its own registry", async () => {
      await client.invoke(conn, RemotingCommand.request(Codes.HELLO), 1000);
      const serverSide = helloConnections.at(-1)!;
      const response = await h.server.invoke(
        serverSide,
        RemotingCommand.request(Codes.ECHO, { from: "server" }),
        1000,
      );
      expect({ code: response.code, remark: response.remark, ext: response.extFields }).toEqual({
        code: 0,
        remark: "from client",
        ext: { from: "server" },
      });
    });

    test("10,000 concurrent requests on one connection are matched by opaque", async () => {
      const requests = Array.from({ length: 10_000 }, (_, i) =>
        client.invoke(conn, RemotingCommand.request(Codes.ECHO, { i: String(i) }), 30_000),
      );
      const responses = await Promise.all(requests);
      expect(responses.every((r, i) => r.extFields?.i === String(i))).toBe(true);
      expect(client.responses.size).toBe(0);
    });

    test("closing one connection fails only its own futures", async () => {
      const other = await h.connect(client);
      const doomed = client
        .invoke(other, RemotingCommand.request(Codes.SILENT), 10_000)
        .catch((e: unknown) => e);
      const survivor = client.invoke(conn, RemotingCommand.request(Codes.SLOW), 10_000);
      other.close();
      expect(await doomed).toBeInstanceOf(ConnectionClosedError);
      while (releaseSlow.length === 0) await Bun.sleep(1);
      releaseSlow.shift()!();
      expect((await survivor).code).toBe(0);
      const again = await client.invoke(conn, RemotingCommand.request(Codes.ECHO), 1000);
      expect(again.code).toBe(0);
    });
  });
}
