import { describe, expect, test } from "bun:test";
import { parseTimestamp } from "../../../src/cli/admin/context.ts";
import {
  humanTime,
  keyValues,
  progressLine,
  table,
  terminalProgress,
  toPlain,
  versionDesc,
} from "../../../src/cli/admin/format.ts";
import { decodeQueueKeyed } from "../../../src/cli/admin/requests.ts";
import { encodeQueueKeyedTable } from "../../../src/protocol/body/queue-keyed.ts";

describe("admin output", () => {
  test("a table sizes each column to its widest cell and trims trailing spaces", () => {
    expect(
      table(
        ["#Broker Name", "#QID", "#Last Updated"],
        [
          ["broker-a", 0, ""],
          ["b", 12, "x"],
        ],
      ),
    ).toBe(["#Broker Name  #QID  #Last Updated", "broker-a      0", "b             12    x"].join("\n"));
  });

  test("key-value lines pad the keys to one width", () => {
    expect(
      keyValues([
        ["a", 1],
        ["long key", "v"],
      ]),
    ).toBe("a       : 1\nlong key: v");
  });

  test("version numbers name Java's MQVersion entries", () => {
    expect([212, 401, 412, 479, 480, 42].map(versionDesc)).toEqual([
      "V4_0_0_SNAPSHOT",
      "V4_9_4",
      "V5_0_0_SNAPSHOT",
      "V5_3_3",
      "V5_3_4_SNAPSHOT",
      "42",
    ]);
  });

  test("times print as local yyyy-MM-dd HH:mm:ss,SSS and parse back from mqadmin's # form", () => {
    const ms = new Date(2024, 1, 29, 7, 5, 9, 42).getTime();
    expect(humanTime(ms)).toBe("2024-02-29 07:05:09,042");
    expect(humanTime(0)).toBe("");
    expect(parseTimestamp("2024-02-29#07:05:09:042")).toBe(ms);
    expect([parseTimestamp("1700000000000"), parseTimestamp("now", 5)]).toEqual([1700000000000, 5]);
    expect([parseTimestamp("2024-02-30#00:00:00:000"), parseTimestamp("yesterday")]).toEqual([
      undefined,
      undefined,
    ]);
  });

  test("JSON output shows Maps as objects, Sets as arrays and bodies as text", () => {
    expect(
      toPlain({ m: new Map([[0, "addr"]]), s: new Set(["a"]), body: new TextEncoder().encode("hi") }),
    ).toEqual({ m: { "0": "addr" }, s: ["a"], body: "hi" });
  });

  test("an object with toJSON (a consumed message's lazy getters) is shown through it", () => {
    class Lazy {
      plain = 1;
      get lazy(): string {
        return "computed";
      }
      toJSON() {
        return { plain: this.plain, lazy: this.lazy, body: new TextEncoder().encode("b") };
      }
    }
    expect(toPlain([new Lazy()])).toEqual([{ plain: 1, lazy: "computed", body: "b" }]);
  });

  test("queue-keyed bodies (fastjson object keys) decode to rows", () => {
    const body = encodeQueueKeyedTable(
      [
        [
          { topic: "T", brokerName: "b", queueId: 0 },
          { brokerOffset: 5, consumerOffset: 2, lastTimestamp: 0 },
        ],
        [
          { topic: "T", brokerName: "b", queueId: 1 },
          { brokerOffset: 7, consumerOffset: 7, lastTimestamp: 9 },
        ],
      ],
      { consumeTps: 0.0 },
    );
    expect(decodeQueueKeyed(body)).toEqual([
      {
        mq: { topic: "T", brokerName: "b", queueId: 0 },
        value: { brokerOffset: 5, consumerOffset: 2, lastTimestamp: 0 },
      },
      {
        mq: { topic: "T", brokerName: "b", queueId: 1 },
        value: { brokerOffset: 7, consumerOffset: 7, lastTimestamp: 9 },
      },
    ]);
    const reset = encodeQueueKeyedTable([[{ topic: "T", brokerName: "b", queueId: 3 }, 42]]);
    expect(decodeQueueKeyed(reset)).toEqual([{ mq: { topic: "T", brokerName: "b", queueId: 3 }, value: 42 }]);
  });
});

describe("progress bar", () => {
  test("a frame shows the filled share, the count, the percentage and the rate", () => {
    expect(progressLine(50, 200, "msgs", 1000, 20)).toBe("[#####...............]  50/200 msgs  25% 50/s");
    expect(progressLine(200, 200, "msgs", 2000, 20)).toBe("[####################] 200/200 msgs 100% 100/s");
  });

  test("redraws in place at most every 100 ms and ends the line when done", () => {
    let now = 0;
    const out: string[] = [];
    const bar = terminalProgress(
      (t) => out.push(t),
      4,
      "msgs",
      () => now,
    );
    now = 150;
    bar.tick();
    now = 160;
    bar.tick(); // within 100 ms of the last frame: not drawn
    now = 400;
    bar.tick(2);
    bar.done();
    expect(out.map((t) => t.replace(/\[[#.]+\] /, ""))).toEqual([
      "\r1/4 msgs  25% 7/s",
      "\r4/4 msgs 100% 10/s",
      "\r4/4 msgs 100% 10/s",
      "\n",
    ]);
  });
});
