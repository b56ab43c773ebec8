import { expect, test } from "bun:test";
import {
  decodeQueueKeyedBody,
  decodeQueueKeyedMaps,
  decodeQueueKeyedTable,
  encodeQueueKeyedTable,
  queueKeyedMapText,
} from "../../../src/protocol/body/queue-keyed.ts";

test("a MessageQueue-keyed table reads back what it was written as, object values and braces in strings included", () => {
  const rows = [
    [
      { topic: "T", brokerName: "b-{1}", queueId: 0 },
      { brokerOffset: 7, consumerOffset: 3, lastTimestamp: 0 },
    ],
    [{ topic: 'T"x', brokerName: "b", queueId: 12 }, 42],
  ] as const;
  const body = encodeQueueKeyedTable(rows, { consumeTps: 1.5 });
  expect(new TextDecoder().decode(body)).toBe(
    '{"consumeTps":1.5,"offsetTable":{{"brokerName":"b-{1}","queueId":0,"topic":"T"}:{"brokerOffset":7,"consumerOffset":3,"lastTimestamp":0},{"brokerName":"b","queueId":12,"topic":"T\\"x"}:42}}',
  );
  expect(decodeQueueKeyedBody(body)).toEqual({
    fields: { consumeTps: 1.5 },
    table: rows.map(([mq, v]) => [{ ...mq }, v]),
  });
});

test("a body without an offset table reads as empty", () => {
  expect(decodeQueueKeyedTable(new TextEncoder().encode('{"offsetTable":{}}'))).toEqual([]);
  expect(decodeQueueKeyedTable(new TextEncoder().encode("{}"))).toEqual([]);
});

test("members after the table are read too, as fastjson may order them", () => {
  const text = '{"offsetTable":{{"brokerName":"b","queueId":1,"topic":"T"}:3},"zeta":[1,{"a":"}"}]}';
  expect(decodeQueueKeyedBody(new TextEncoder().encode(text))).toEqual({
    fields: { zeta: [1, { a: "}" }] },
    table: [[{ topic: "T", brokerName: "b", queueId: 1 }, 3]],
  });
});

test("a member mapping names to queue-keyed maps reads back per name: braces and quotes in names, empty maps, members around it", () => {
  const a = { topic: "T", brokerName: "b-{1}", queueId: 0 };
  const b = { topic: "T", brokerName: "b", queueId: 3 };
  const text = `{"before":{"x":1},"consumerTable":{"c{1}\\"q":${queueKeyedMapText([
    [a, 5],
    [b, 9],
  ])},"empty":{},"c2":${queueKeyedMapText([[b, 1]])}},"messageQueueTable":{}}`;
  const maps = decodeQueueKeyedMaps(new TextEncoder().encode(text), "consumerTable");
  expect([...maps]).toEqual([
    [
      'c{1}"q',
      [
        [a, 5],
        [b, 9],
      ],
    ],
    ["empty", []],
    ["c2", [[b, 1]]],
  ]);
  expect(decodeQueueKeyedMaps(new TextEncoder().encode('{"other":{}}'), "consumerTable").size).toBe(0);
});
