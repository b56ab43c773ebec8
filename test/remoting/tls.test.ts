/**
 * TLS on a RemotingServer in each mode, with the remoting client over TLS and over plaintext:
 * who is served, who is refused, and that every refusal names its cause on the side that sees it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createPrivateKey } from "node:crypto";
import pino from "pino";
import {
  ClientAuth,
  type ClientTlsOptions,
  encodeFrame,
  RemotingClient,
  RemotingCommand,
  RemotingServer,
  ResponseCode,
  ServerResources,
  type ServerTlsOptions,
  TlsMode,
  tcpConnector,
} from "../../src/remoting/index.ts";
import { waitFor } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";
import { type TestCertificates, testCertificates } from "../support/tls-certs.ts";

const ECHO = 1001;
const BIG = 1002;
const BIG_BYTES = 4 * 1024 * 1024;

let certs: TestCertificates;
beforeAll(async () => {
  certs = await testCertificates();
});

/** Log lines a server wrote, as objects. */
function capturingLog() {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines };
}

async function startServer(tls: ServerTlsOptions | undefined, log = silent) {
  const server = new RemotingServer({ name: "tls", listenPort: 0, bindAddress: "127.0.0.1", log, tls });
  server.registry.register(ECHO, (req) =>
    RemotingCommand.response(ResponseCode.SUCCESS, null, req.extFields, req.body),
  );
  server.registry.register(BIG, () =>
    RemotingCommand.response(ResponseCode.SUCCESS, null, null, new Uint8Array(BIG_BYTES).fill(7)),
  );
  await server.start();
  return server;
}

function client(tls?: ClientTlsOptions) {
  return new RemotingClient({ name: "client", log: silent, connector: tcpConnector({ log: silent, tls }) });
}

function serverTls(mode: ServerTlsOptions["mode"], more: Partial<ServerTlsOptions> = {}): ServerTlsOptions {
  return {
    mode,
    cert: certs.server.certPem,
    key: certs.server.keyPem,
    clientAuth: ClientAuth.NONE,
    verifyClient: true,
    ...more,
  };
}

/** An echo round trip; resolves to the echoed `n`, or rejects with the client's error. */
async function echo(c: RemotingClient, addr: string, n = "1"): Promise<string | undefined> {
  const response = await c.invoke(addr, RemotingCommand.request(ECHO, { n }), 5000);
  return response.ext("n");
}

function failure(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "succeeded",
    (err: Error) => err.message,
  );
}

describe.each([TlsMode.ENFORCING, TlsMode.PERMISSIVE])("%s mode", (mode) => {
  let server: RemotingServer;
  let addr: string;
  beforeAll(async () => {
    server = await startServer(serverTls(mode));
    addr = `127.0.0.1:${server.port}`;
  });
  afterAll(() => server.stop());

  test("a TLS client that trusts the CA is served", async () => {
    const c = client({ ca: certs.ca.certPem });
    expect(await echo(c, addr, "hello")).toBe("hello");
    await c.shutdown();
  });

  test("the server sees the TLS client's own address", async () => {
    const c = client({ ca: certs.ca.certPem });
    await echo(c, addr);
    const mine = (await c.connection(addr)).localAddress;
    expect([...server.connections].map((conn) => conn.remoteAddress)).toContain(mine);
    await c.shutdown();
  });

  test("a 4 MiB response crosses TLS whole (partial writes wait for drain)", async () => {
    const c = client({ ca: certs.ca.certPem });
    const responses = await Promise.all(
      [1, 2, 3].map(() => c.invoke(addr, RemotingCommand.request(BIG), 10_000)),
    );
    for (const r of responses) expect(r.body?.length).toBe(BIG_BYTES);
    expect(responses.every((r) => r.body?.every((b) => b === 7))).toBe(true);
    await c.shutdown();
  });

  test("many requests in flight over one TLS connection are all answered", async () => {
    const c = client({ ca: certs.ca.certPem });
    const answers = await Promise.all(Array.from({ length: 500 }, (_, i) => echo(c, addr, String(i))));
    expect(answers).toEqual(Array.from({ length: 500 }, (_, i) => String(i)));
    await c.shutdown();
  });
});

test.each([TlsMode.ENFORCING, TlsMode.PERMISSIVE])(
  "%s: an encrypted key serves with its passphrase",
  async (mode) => {
    const key = createPrivateKey(certs.server.keyPem)
      .export({ format: "pem", type: "pkcs8", cipher: "aes-256-cbc", passphrase: "right" })
      .toString();
    const server = await startServer({ ...serverTls(mode), key, passphrase: "right" });
    const c = client({ ca: certs.ca.certPem });
    expect(await echo(c, `127.0.0.1:${server.port}`, "locked")).toBe("locked");
    await c.shutdown();
    await server.stop();
  },
);

describe("enforcing refuses plaintext", () => {
  let server: RemotingServer;
  let addr: string;
  const logs = capturingLog();
  beforeAll(async () => {
    server = await startServer(serverTls(TlsMode.ENFORCING), logs.log);
    addr = `127.0.0.1:${server.port}`;
  });
  afterAll(() => server.stop());

  test("a plaintext client's request fails, saying the server requires TLS", async () => {
    const c = client();
    expect(await failure(echo(c, addr))).toMatch(
      /^connection closed \(the peer answered with a TLS alert: it requires TLS \(tls\.server\.mode=enforcing\); connect with TLS/,
    );
    await c.shutdown();
  });

  test("a plaintext frame gets a 7-byte TLS alert and the connection is closed", async () => {
    const got: number[] = [];
    const closed = Promise.withResolvers<void>();
    const socket = await Bun.connect({
      hostname: "127.0.0.1",
      port: server.port,
      socket: { data: (_s, chunk) => void got.push(...chunk), close: () => closed.resolve() },
    });
    const frame = RemotingCommand.request(ECHO);
    frame.opaque = 1;
    socket.write(encodeFrame(frame));
    await closed.promise;
    // Record type 0x15 (alert), a TLS version, length 2, then level and description.
    expect({ record: got[0], length: got.length }).toEqual({ record: 0x15, length: 7 });
  });

  test("the server logs the refusal as a peer that does not speak TLS", async () => {
    const c = client();
    await failure(echo(c, addr));
    await c.shutdown();
    const refusal = logs.lines.find((l) => l.msg === "TLS connection refused");
    expect(refusal?.reason).toMatch(/the peer does not speak TLS/);
  });
});

describe("permissive serves both on one port", () => {
  let server: RemotingServer;
  let addr: string;
  beforeAll(async () => {
    server = await startServer(serverTls(TlsMode.PERMISSIVE));
    addr = `127.0.0.1:${server.port}`;
  });
  afterAll(() => server.stop());

  test("a plaintext client and a TLS client are served side by side", async () => {
    const plain = client();
    const secure = client({ ca: certs.ca.certPem });
    expect(await Promise.all([echo(plain, addr, "p"), echo(secure, addr, "s")])).toEqual(["p", "s"]);
    expect(server.connections.size).toBe(2);
    await plain.shutdown();
    await secure.shutdown();
  });

  test("a connection that closes before its first byte leaves the connection cap", async () => {
    const gate = server.resources.connections;
    await waitFor("earlier connections gone", () => gate.open === 0);
    const socket = await Bun.connect({ hostname: "127.0.0.1", port: server.port, socket: { data() {} } });
    await waitFor("the silent connection admitted", () => gate.open === 1);
    socket.end();
    await waitFor("the silent connection left", () => gate.open === 0);
    expect(server.connections.size).toBe(0);
  });
});

describe("permissive limits", () => {
  test("a TLS connection counts once against the connection cap", async () => {
    const resources = new ServerResources({ connectionsMax: 1, log: silent });
    const server = new RemotingServer({
      name: "capped",
      listenPort: 0,
      bindAddress: "127.0.0.1",
      log: silent,
      resources,
      tls: serverTls(TlsMode.PERMISSIVE),
    });
    server.registry.register(ECHO, (req) =>
      RemotingCommand.response(ResponseCode.SUCCESS, null, req.extFields),
    );
    await server.start();
    const addr = `127.0.0.1:${server.port}`;
    const first = client({ ca: certs.ca.certPem });
    const second = client({ ca: certs.ca.certPem });
    expect(await echo(first, addr, "in")).toBe("in");
    const refused = await failure(echo(second, addr));
    expect({ open: resources.connections.open, refused: resources.connections.refused }).toEqual({
      open: 1,
      refused: 1,
    });
    expect(refused).not.toBe("succeeded");
    await first.shutdown();
    await second.shutdown();
    await server.stop();
    resources.stop();
  });

  test("a connection silent before its first byte is closed at the idle timeout and leaves the cap", async () => {
    const server = new RemotingServer({
      name: "idle",
      listenPort: 0,
      bindAddress: "127.0.0.1",
      log: silent,
      idleSeconds: 1,
      tls: serverTls(TlsMode.PERMISSIVE),
    });
    await server.start();
    const closed = Promise.withResolvers<void>();
    await Bun.connect({
      hostname: "127.0.0.1",
      port: server.port,
      socket: { data() {}, close: () => closed.resolve() },
    });
    await waitFor("admitted", () => server.resources.connections.open === 1);
    await closed.promise;
    await waitFor("left the cap", () => server.resources.connections.open === 0);
    await server.stop();
  });
});

describe("disabled refuses TLS", () => {
  test("a TLS client to a plaintext server fails, saying the handshake did not complete", async () => {
    const logs = capturingLog();
    const server = await startServer(undefined, logs.log);
    const c = client({ ca: certs.ca.certPem });
    expect(await failure(echo(c, `127.0.0.1:${server.port}`))).toMatch(
      new RegExp(
        `^connect to 127\\.0\\.0\\.1:${server.port} failed: TLS handshake failed: the connection closed during the TLS handshake`,
      ),
    );
    await c.shutdown();
    await server.stop();
    const warning = logs.lines.find((l) => l.msg === "closing connection: TLS on one side only");
    expect(warning?.reason).toMatch(/^the peer opened a TLS handshake on a plaintext connection/);
  });
});

describe("the client names why it does not trust a server", () => {
  const cases: [string, keyof TestCertificates, ClientTlsOptions, RegExp][] = [
    ["self-signed", "selfSigned", {}, /the certificate is self-signed and not trusted/],
    ["issued by an unknown CA", "server", {}, /issuer is not trusted|self-signed CA that is not trusted/],
    ["for another host name", "wrongHost", {}, /hostname mismatch/],
    ["expired", "expired", {}, /the certificate has expired/],
  ];
  test.each(cases)("a server certificate %s", async (_what, which, options, expected) => {
    const cert = certs[which];
    const server = await startServer({
      ...serverTls(TlsMode.ENFORCING),
      cert: cert.certPem,
      key: cert.keyPem,
    });
    const trusting = which === "server" ? {} : { ca: certs.ca.certPem };
    const c = client({ ...trusting, ...options });
    const message = await failure(echo(c, `127.0.0.1:${server.port}`));
    expect(message).toMatch(/^connect to 127\.0\.0\.1:\d+ failed: TLS handshake failed: /);
    expect(message).toMatch(expected);
    expect(message).toMatch(/tls\.client\.trustCertPath|renew|reissue/);
    await c.shutdown();
    await server.stop();
  });

  test("verifyServer: false takes a self-signed certificate (Java's authServer=false)", async () => {
    const cert = certs.selfSigned;
    const server = await startServer({
      ...serverTls(TlsMode.ENFORCING),
      cert: cert.certPem,
      key: cert.keyPem,
    });
    const c = client({ verifyServer: false });
    expect(await echo(c, `127.0.0.1:${server.port}`, "any")).toBe("any");
    await c.shutdown();
    await server.stop();
  });
});

describe.each([TlsMode.ENFORCING, TlsMode.PERMISSIVE])("client certificates, %s mode", (mode) => {
  const withCert = () => ({ ca: certs.ca.certPem, cert: certs.client.certPem, key: certs.client.keyPem });
  const stranger = () => ({
    ca: certs.ca.certPem,
    cert: certs.strangerClient.certPem,
    key: certs.strangerClient.keyPem,
  });
  const run = async (
    auth: Partial<ServerTlsOptions>,
    tls: () => ClientTlsOptions,
  ): Promise<{ outcome: string; refusal: unknown }> => {
    const logs = capturingLog();
    const server = await startServer(serverTls(mode, { ca: certs.ca.certPem, ...auth }), logs.log);
    const c = client(tls());
    const outcome = await echo(c, `127.0.0.1:${server.port}`, "ok").then(
      (n) => n ?? "",
      (err: Error) => err.message,
    );
    await c.shutdown();
    const refused = () => logs.lines.find((l) => l.msg === "TLS connection refused")?.reason;
    // The server decides after the client saw its answer: wait for its verdict when there is one.
    if (outcome !== "ok") await waitFor("the server's refusal", refused);
    await server.stop();
    return { outcome, refusal: refused() };
  };

  test("require: a client certificate issued by the trusted CA is served", async () => {
    expect(await run({ clientAuth: ClientAuth.REQUIRE }, withCert)).toEqual({
      outcome: "ok",
      refusal: undefined,
    });
  });

  test("require: a client without a certificate is refused, and told why", async () => {
    const { outcome, refusal } = await run({ clientAuth: ClientAuth.REQUIRE }, () => ({
      ca: certs.ca.certPem,
    }));
    expect(outcome).toMatch(/the server requires a client certificate and none was sent/);
    expect(refusal).toBeDefined();
  });

  test("require: a certificate from an untrusted CA is refused; the server names the cause", async () => {
    const { outcome, refusal } = await run({ clientAuth: ClientAuth.REQUIRE }, stranger);
    expect(outcome).not.toBe("ok");
    expect(String(refusal)).toMatch(/certificate/);
  });

  test("optional: a client without a certificate is served", async () => {
    expect(await run({ clientAuth: ClientAuth.OPTIONAL }, () => ({ ca: certs.ca.certPem }))).toEqual({
      outcome: "ok",
      refusal: undefined,
    });
  });

  test("optional: a certificate from an untrusted CA is refused", async () => {
    const { outcome, refusal } = await run({ clientAuth: ClientAuth.OPTIONAL }, stranger);
    expect(outcome).not.toBe("ok");
    expect(refusal).toMatch(/^the client's certificate is not trusted: /);
  });

  test("require without verification (authClient=false) takes any certificate", async () => {
    expect(await run({ clientAuth: ClientAuth.REQUIRE, verifyClient: false }, stranger)).toEqual({
      outcome: "ok",
      refusal: undefined,
    });
  });

  test("require without verification still refuses a client with no certificate", async () => {
    const { outcome, refusal } = await run({ clientAuth: ClientAuth.REQUIRE, verifyClient: false }, () => ({
      ca: certs.ca.certPem,
    }));
    expect(outcome).not.toBe("ok");
    expect(refusal).toBe("the client sent no certificate (tls.server.need.client.auth=require)");
  });
});
