import { describe, expect, test } from "bun:test";
import { RemotingCommand } from "../../src/remoting/command.ts";
import type { Connection, ConnectionHandler } from "../../src/remoting/connection.ts";
import { createInProcessPair } from "../../src/remoting/in-process.ts";

/** A handler that records what it is given, and when (the event-loop turn, counted by the test). */
function recorder(turn: () => number) {
  const got: { opaque: number; turn: number }[] = [];
  const closed: string[] = [];
  const handler: ConnectionHandler = {
    onCommand: (_c: Connection, cmd: RemotingCommand) => {
      got.push({ opaque: cmd.opaque, turn: turn() });
    },
    onClose: (_c: Connection, reason: string) => {
      closed.push(reason);
    },
  };
  return { got, closed, handler };
}

function request(opaque: number): RemotingCommand {
  const cmd = RemotingCommand.request(10, { n: String(opaque) });
  cmd.opaque = opaque;
  return cmd;
}

/** Counts event-loop turns while running, so a test can see which turn a delivery came in. */
function turnCounter() {
  let turn = 0;
  let on = true;
  const tick = () => {
    turn++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turn, stop: () => (on = false) };
}

const nextTurns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
};

for (const roundTrip of [false, true]) {
  describe(`in-process pair${roundTrip ? " (round trip)" : ""}`, () => {
    test("requests sent in one turn reach the server together, in the order sent, after that turn", async () => {
      const turns = turnCounter();
      const server = recorder(turns.now);
      const client = recorder(turns.now);
      const [c] = createInProcessPair(client.handler, server.handler, { roundTrip });
      for (let i = 1; i <= 5; i++) expect(c.send(request(i))).toBe(true);
      await Promise.resolve();
      // Not delivered within the sending turn's microtasks: the turn's batch is still open.
      expect(server.got).toEqual([]);
      await nextTurns(2);
      expect(server.got.map((g) => g.opaque)).toEqual([1, 2, 3, 4, 5]);
      expect(new Set(server.got.map((g) => g.turn)).size).toBe(1);
      for (let i = 6; i <= 7; i++) c.send(request(i));
      await nextTurns(2);
      expect(server.got.map((g) => g.opaque)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(server.got[5]!.turn).toBeGreaterThan(server.got[0]!.turn);
      turns.stop();
    });

    test("the server's answers go back one by one within the turn (a microtask each)", async () => {
      const turns = turnCounter();
      const client = recorder(turns.now);
      const [, s] = createInProcessPair(client.handler, recorder(turns.now).handler, { roundTrip });
      s.send(request(1));
      s.send(request(2));
      await Promise.resolve();
      await Promise.resolve();
      expect(client.got.map((g) => g.opaque)).toEqual([1, 2]);
      turns.stop();
    });

    test("a close after sends delivers them first, then closes the server side", async () => {
      const order: string[] = [];
      const server: ConnectionHandler = {
        onCommand: (_c, cmd) => order.push(`cmd ${cmd.opaque}`),
        onClose: (_c, reason) => order.push(`close: ${reason}`),
      };
      const client = recorder(() => 0);
      const [c, s] = createInProcessPair(client.handler, server, { roundTrip });
      c.send(request(1));
      c.send(request(2));
      c.close("done");
      expect(c.closed).toBe(true);
      expect(c.send(request(3))).toBe(false);
      expect(client.closed).toEqual(["done"]);
      await nextTurns(2);
      expect(order).toEqual(["cmd 1", "cmd 2", "close: closed by peer"]);
      expect(s.closed).toBe(true);
    });

    test("requests sent after the server side closed are not delivered", async () => {
      const turns = turnCounter();
      const server = recorder(turns.now);
      const client = recorder(turns.now);
      const [c, s] = createInProcessPair(client.handler, server.handler, { roundTrip });
      s.close("server stopping");
      await nextTurns(1);
      expect(client.closed).toEqual(["closed by peer"]);
      expect(c.send(request(1))).toBe(false);
      await nextTurns(2);
      expect(server.got).toEqual([]);
      turns.stop();
    });
  });
}
