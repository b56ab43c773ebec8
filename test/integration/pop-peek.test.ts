/**
 * PEEK_MESSAGE, NOTIFICATION, POLLING_INFO and POP_ROLLBACK as a 5.x broker answers them (spec
 * pop-timer-filter §A.10), and POP/PEEK reads charged to the server buffer budget like pulls.
 */
import { expect, test } from "bun:test";
import { popServiceOf } from "../../broker/services/pop-leases.ts";
import {
  NotificationRequestHeader,
  PeekMessageRequestHeader,
  PollingInfoRequestHeader,
} from "../../src/protocol/headers/pop.ts";
import { type RemotingClient, RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { createTopic, decodeRecords, request, startBroker, waitFor } from "./harness.ts";
import { handlesOf, popRequest, send } from "./pop-support.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);

function peek(c: RemotingClient, addr: string, topic: string, maxMsgNums = 32) {
  return c.invoke(
    addr,
    request(
      RequestCode.PEEK_MESSAGE,
      PeekMessageRequestHeader.encode({ topic, queueId: -1, maxMsgNums, consumerGroup: "GK" }),
    ),
  );
}

function notification(c: RemotingClient, addr: string, topic: string, pollTime: number) {
  return c.invoke(
    addr,
    request(
      RequestCode.NOTIFICATION,
      NotificationRequestHeader.encode({
        consumerGroup: "GK",
        topic,
        queueId: -1,
        pollTime,
        bornTime: Date.now(),
      }),
    ),
    pollTime + 5000,
  );
}

test("PEEK reads from the group's pop offset without leasing: restNum only in the header, PULL_NOT_FOUND when nothing is left", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TPeek", 1);
  const empty = await peek(c, h.addr, "TPeek");
  expect({ code: empty.code, remark: empty.remark, ext: empty.extFields }).toEqual({
    code: ResponseCode.PULL_NOT_FOUND,
    remark: "NO_MESSAGE_IN_QUEUE",
    ext: { popTime: "0", invisibleTime: "0", reviveQid: "0", restNum: "0" },
  });
  for (const b of ["p0", "p1", "p2"]) await send(c, h.addr, "TPeek", b);
  const two = await peek(c, h.addr, "TPeek", 2);
  expect({
    code: two.code,
    remark: two.remark,
    ext: two.extFields,
    bodies: decodeRecords(two.body).map((r) => text(r.body)),
  }).toEqual({
    code: ResponseCode.SUCCESS,
    remark: "FOUND",
    ext: { popTime: "0", invisibleTime: "0", reviveQid: "0", restNum: "3" },
    bodies: ["p0", "p1"],
  });
  expect(popServiceOf(h.broker.context).leaseCount).toBe(0);
  const popped = await c.invoke(h.addr, popRequest({ group: "GK", topic: "TPeek" }));
  expect(handlesOf(popped).map((m) => text(m.record.body))).toEqual(["p0", "p1", "p2"]);
  // Everything is leased: the pop offset is past it, nothing to peek.
  expect((await peek(c, h.addr, "TPeek")).code).toBe(ResponseCode.PULL_NOT_FOUND);
});

test("NOTIFICATION says whether a pop would find messages; parked, it is woken by a send without taking the parked pop's wake-up", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TNote", 2);
  const idle = await notification(c, h.addr, "TNote", 0);
  expect({ code: idle.code, ext: idle.extFields }).toEqual({
    code: ResponseCode.SUCCESS,
    ext: { hasMsg: "false", pollingFull: "false" },
  });
  const pop = popServiceOf(h.broker.context);
  const parkedPop = c.invoke(h.addr, popRequest({ group: "GK", topic: "TNote", pollMs: 5000 }), 10_000);
  const parkedNote = notification(c, h.addr, "TNote", 5000);
  await waitFor("both parked", () => pop.waiters.size === 1 && pop.notifications.size === 1);
  await send(c, h.addr, "TNote", "n0");
  const [p, n] = await Promise.all([parkedPop, parkedNote]);
  expect({
    pop: handlesOf(p).map((m) => text(m.record.body)),
    note: n.extFields,
  }).toEqual({
    pop: ["n0"],
    note: { hasMsg: "true", pollingFull: "false" },
  });
  const timedOut = await notification(c, h.addr, "TNote", 300);
  expect(timedOut.extFields).toEqual({ hasMsg: "false", pollingFull: "false" });
});

test("POLLING_INFO counts the pops parked under topic@group@queueId; bad topics and queues get POP's codes", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TInfo", 2);
  const info = (topic: string, queueId: number) =>
    c.invoke(
      h.addr,
      request(
        RequestCode.POLLING_INFO,
        PollingInfoRequestHeader.encode({ consumerGroup: "GK", topic, queueId }),
      ),
    );
  const parked = [0, 1].map(() =>
    c.invoke(h.addr, popRequest({ group: "GK", topic: "TInfo", pollMs: 1500 }), 10_000),
  );
  await waitFor("two parked", () => popServiceOf(h.broker.context).waiters.size === 2);
  const got = {
    all: (await info("TInfo", -1)).extFields,
    queue0: (await info("TInfo", 0)).extFields,
    unknownTopic: (await info("TNone", 0)).code,
    badQueue: (await info("TInfo", 9)).code,
  };
  expect(got).toEqual({
    all: { pollingNum: "2" },
    queue0: { pollingNum: "0" },
    unknownTopic: ResponseCode.TOPIC_NOT_EXIST,
    badQueue: ResponseCode.INVALID_PARAMETER,
  });
  await Promise.all(parked);
});

test("POP_ROLLBACK is SUCCESS on both ports; PEEK, NOTIFICATION and POLLING_INFO are main-port only, as Java registers them", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TVip", 1);
  const codes = {
    rollbackMain: (await c.invoke(h.addr, request(RequestCode.POP_ROLLBACK, null))).code,
    rollbackVip: (await c.invoke(h.vipAddr, request(RequestCode.POP_ROLLBACK, null))).code,
    peekVip: (await peek(c, h.vipAddr, "TVip")).code,
  };
  expect(codes).toEqual({
    rollbackMain: ResponseCode.SUCCESS,
    rollbackVip: ResponseCode.SUCCESS,
    peekVip: ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
  });
});

test("POP and PEEK reads are charged to the server buffer budget: without room they are refused SYSTEM_BUSY, and the charge is returned", async () => {
  // Below one read's charge (maxMessageSize, 4 MiB): no read fits.
  await using h = await startBroker({ serverBufferBytesMax: String(1024 * 1024) });
  const c = h.client();
  await createTopic(c, h.addr, "TBudget", 1);
  await send(c, h.addr, "TBudget", "b0");
  const popped = await c.invoke(h.addr, popRequest({ group: "GK", topic: "TBudget" }));
  const peeked = await peek(c, h.addr, "TBudget");
  expect({ pop: popped.code, peek: peeked.code, leases: popServiceOf(h.broker.context).leaseCount }).toEqual({
    pop: ResponseCode.SYSTEM_BUSY,
    peek: ResponseCode.SYSTEM_BUSY,
    leases: 0,
  });
  await waitFor("the working charge returned", () => h.broker.context.budget.used === 0);
});

test("with room in the budget a pop's working charge is returned once it is answered", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TBudget", 1);
  await send(c, h.addr, "TBudget", "b0");
  const popped = await c.invoke(h.addr, popRequest({ group: "GK", topic: "TBudget" }));
  expect(popped.code).toBe(ResponseCode.SUCCESS);
  await waitFor("the working charge returned", () => h.broker.context.budget.used === 0);
});
