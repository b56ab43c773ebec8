/**
 * ClientManager's producers by clientId (where PUSH_REPLY_MESSAGE_TO_CLIENT goes, spec broker
 * §1.10): found after a heartbeat, gone with the connection, and kept while the client still
 * produces for another group over the same connection.
 */
import { expect, test } from "bun:test";
import { type ClientChannel, ClientManager } from "../../../broker/services/client-manager.ts";
import type { Connection } from "../../../src/remoting/connection.ts";

const conn = (remoteAddress: string) => ({ remoteAddress, close() {} }) as unknown as Connection;
const channel = (c: Connection, clientId: string): ClientChannel => ({
  conn: c,
  clientId,
  language: "JAVA",
  version: 479,
  lastUpdate: Date.now(),
});

test("a registered producer is found by clientId; another client id is not", () => {
  const m = new ClientManager();
  const a = conn("127.0.0.1:1");
  m.registerProducer("PG", channel(a, "10.0.0.1@a"));
  expect([m.findProducerChannel("10.0.0.1@a")?.conn, m.findProducerChannel("10.0.0.1@b")]).toEqual([
    a,
    undefined,
  ]);
});

test("a closed connection takes its producer out of the clientId table", () => {
  const m = new ClientManager();
  const a = conn("127.0.0.1:1");
  const b = conn("127.0.0.1:2");
  m.registerProducer("PG", channel(a, "id-a"));
  m.registerProducer("PG", channel(b, "id-b"));
  m.connectionClosed(a);
  expect([m.findProducerChannel("id-a"), m.findProducerChannel("id-b")?.conn]).toEqual([undefined, b]);
});

test("unregistering one of two groups keeps the client findable; the last one removes it", () => {
  const m = new ClientManager();
  const a = conn("127.0.0.1:1");
  m.registerProducer("PG1", channel(a, "id-a"));
  m.registerProducer("PG2", channel(a, "id-a"));
  m.unregisterProducer("PG1", a);
  const afterFirst = m.findProducerChannel("id-a")?.conn;
  m.unregisterProducer("PG2", a);
  expect([afterFirst, m.findProducerChannel("id-a")]).toEqual([a, undefined]);
});

test("an expired producer is dropped from the clientId table", () => {
  const m = new ClientManager();
  const a = conn("127.0.0.1:1");
  m.registerProducer("PG", { ...channel(a, "id-a"), lastUpdate: 0 });
  expect(m.scanExpired(1_000_000, 1_000)).toEqual([a]);
  expect(m.findProducerChannel("id-a")).toBeUndefined();
});

test("a client reconnecting on a new connection is found there, and the old one's close does not remove it", () => {
  const m = new ClientManager();
  const old = conn("127.0.0.1:1");
  const fresh = conn("127.0.0.1:2");
  m.registerProducer("PG", channel(old, "id-a"));
  m.registerProducer("PG", channel(fresh, "id-a"));
  m.connectionClosed(old);
  expect(m.findProducerChannel("id-a")?.conn).toBe(fresh);
});
