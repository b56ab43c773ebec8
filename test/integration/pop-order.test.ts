/**
 * Ordered POP over real TCP (spec pop-timer-filter §A.15, §A.5.2, §A.9 step 2): a queue with an
 * un-acked batch is skipped until the batch is acked or expires; then the same offsets come again
 * in order, their delivery counts in orderCountInfo byte for byte; acks of offsets outside the
 * batch are MESSAGE_ILLEGAL; ordered CHANGE_MESSAGE_INVISIBLETIME keeps the handle's popTime;
 * the blocked state survives a restart.
 */
import { expect, test } from "bun:test";
import {
  ChangeInvisibleTimeRequestHeader,
  ChangeInvisibleTimeResponseHeader,
  PopMessageResponseHeader,
} from "../../src/protocol/headers/pop.ts";
import { type RemotingClient, RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { createTopic, request, startBroker } from "./harness.ts";
import { ack, handlesOf, popRequest, send } from "./pop-support.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);

async function popOrdered(c: RemotingClient, addr: string, max: number, invisibleMs: number, pollMs = 0) {
  const reply = await c.invoke(
    addr,
    popRequest({ group: "GO", topic: "TOrd", queueId: 0, max, invisibleMs, pollMs, order: true }),
    pollMs + 5000,
  );
  const h = PopMessageResponseHeader.decode(reply.extFields);
  const got = handlesOf(reply);
  return {
    code: reply.code,
    reviveQid: h.reviveQid,
    orderCountInfo: h.orderCountInfo,
    bodies: got.map((m) => text(m.record.body)),
    handles: got.map((m) => m.handle),
  };
}

test("an ordered batch blocks its queue until acked or expired; then the same offsets come again with their counts in orderCountInfo", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TOrd", 1);
  for (let i = 0; i < 6; i++) await send(c, h.addr, "TOrd", `o${i}`);
  const committed = () => h.broker.context.offsets.query("GO", "TOrd", 0);

  const first = await popOrdered(c, h.addr, 3, 400);
  expect({ ...first, handles: first.handles.length }).toEqual({
    code: ResponseCode.SUCCESS,
    reviveQid: 999,
    orderCountInfo: "0 0 0",
    bodies: ["o0", "o1", "o2"],
    handles: 3,
  });
  expect(first.handles[0]!.split(" ")[3]).toBe("999");
  expect(committed()).toBe(0);

  // Blocked: skipped without a message, orderCountInfo present and empty.
  const blocked = await popOrdered(c, h.addr, 3, 400);
  expect({ code: blocked.code, orderCountInfo: blocked.orderCountInfo }).toEqual({
    code: ResponseCode.POLLING_TIMEOUT,
    orderCountInfo: "",
  });

  expect((await ack(c, h.addr, "GO", "TOrd", 0, first.handles[0]!)).code).toBe(ResponseCode.SUCCESS);
  expect(committed()).toBe(1);
  // Acking an offset the batch does not hold: MESSAGE_ILLEGAL, as Java's commitAndNext −1.
  const outside = first.handles[2]!.split(" ");
  outside[7] = "4";
  const illegal = await ack(c, h.addr, "GO", "TOrd", 0, outside.join(" "));
  expect({ code: illegal.code, remark: illegal.remark?.split(", ").slice(0, 4) }).toEqual({
    code: ResponseCode.MESSAGE_ILLEGAL,
    remark: ["offset is illegal", "key:TOrd@GO@0", "old:1", "commit:4"],
  });

  // Parked while blocked; answered once the batch expires, from the first un-acked offset.
  const second = await popOrdered(c, h.addr, 2, 60_000, 3000);
  expect({ ...second, handles: undefined }).toEqual({
    code: ResponseCode.SUCCESS,
    reviveQid: 999,
    orderCountInfo: "0 qo0%1 1;0 qo0%2 1;0 0 1",
    bodies: ["o1", "o2"],
    handles: undefined,
  });
  // A stale handle (the first batch's popTime) changes nothing.
  expect((await ack(c, h.addr, "GO", "TOrd", 0, first.handles[1]!)).code).toBe(ResponseCode.SUCCESS);
  expect(committed()).toBe(1);

  // Acking out of order: the commit waits for the first offset of the batch.
  expect((await ack(c, h.addr, "GO", "TOrd", 0, second.handles[1]!)).code).toBe(ResponseCode.SUCCESS);
  expect(committed()).toBe(1);
  const parked = popOrdered(c, h.addr, 3, 60_000, 3000);
  expect((await ack(c, h.addr, "GO", "TOrd", 0, second.handles[0]!)).code).toBe(ResponseCode.SUCCESS);
  expect(committed()).toBe(3);
  // The ack unblocked the queue and woke the parked pop: new offsets, first delivery.
  const third = await parked;
  expect({ code: third.code, orderCountInfo: third.orderCountInfo, bodies: third.bodies }).toEqual({
    code: ResponseCode.SUCCESS,
    orderCountInfo: "0 0 0",
    bodies: ["o3", "o4", "o5"],
  });
});

test("ordered CHANGE_MESSAGE_INVISIBLETIME keeps the handle's popTime and extends the block; the block survives a restart", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TOrd", 1);
  await send(c, h.addr, "TOrd", "c0");
  const first = await popOrdered(c, h.addr, 1, 300);
  const handle = first.handles[0]!;
  const popTime = Number(handle.split(" ")[1]);
  const before = Date.now();
  const changed = await c.invoke(
    h.addr,
    request(
      RequestCode.CHANGE_MESSAGE_INVISIBLETIME,
      ChangeInvisibleTimeRequestHeader.encode({
        consumerGroup: "GO",
        topic: "TOrd",
        queueId: 0,
        extraInfo: handle,
        offset: 0,
        invisibleTime: 60_000,
      }),
    ),
  );
  const ch = ChangeInvisibleTimeResponseHeader.decode(changed.extFields);
  expect({ code: changed.code, popTime: ch.popTime, reviveQid: ch.reviveQid }).toEqual({
    code: ResponseCode.SUCCESS,
    popTime,
    reviveQid: 999,
  });
  expect(ch.invisibleTime).toBeGreaterThanOrEqual(before + 60_000 - popTime);
  await h.restart();
  // Past the original 300 ms: still blocked by the change, also after the restart.
  const still = await popOrdered(c, h.addr, 1, 300, 600);
  expect(still.code).toBe(ResponseCode.POLLING_TIMEOUT);
  expect((await ack(c, h.addr, "GO", "TOrd", 0, handle)).code).toBe(ResponseCode.SUCCESS);
  expect(h.broker.context.offsets.query("GO", "TOrd", 0)).toBe(1);
});

test("invisible times outside 0…12 h are INVALID_PARAMETER for POP and CHANGE_MESSAGE_INVISIBLETIME", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TInv", 1);
  await send(c, h.addr, "TInv", "x");
  const pop = async (invisibleMs: number) =>
    (await c.invoke(h.addr, popRequest({ group: "GI", topic: "TInv", invisibleMs }))).code;
  const change = async (invisibleTime: number) => {
    const r = await c.invoke(
      h.addr,
      request(
        RequestCode.CHANGE_MESSAGE_INVISIBLETIME,
        ChangeInvisibleTimeRequestHeader.encode({
          consumerGroup: "GI",
          topic: "TInv",
          queueId: 0,
          extraInfo: "0 1 2 3 0 broker-it 0 0",
          offset: 0,
          invisibleTime,
        }),
      ),
    );
    return { code: r.code, header: r.extFields };
  };
  expect({
    popNegative: await pop(-1),
    popTooLong: await pop(12 * 3600_000 + 1),
    changeNegative: await change(-5),
  }).toEqual({
    popNegative: ResponseCode.INVALID_PARAMETER,
    popTooLong: ResponseCode.INVALID_PARAMETER,
    changeNegative: {
      code: ResponseCode.INVALID_PARAMETER,
      header: { popTime: "0", invisibleTime: "0", reviveQid: "0" },
    },
  });
});
