/**
 * Property lookups on stored record bytes answer as decoding the properties would (spec broker
 * §2, §4.1): the last non-empty value of a name, nothing for an absent or empty one, UTF-8 values
 * intact, and names matched whole (`a` is not `ab`).
 */
import { describe, expect, test } from "bun:test";
import { recordPropertyLookup } from "../../../broker/filter/record-properties.ts";
import {
  decodeProperties,
  encodeRecord,
  NAME_VALUE_SEPARATOR as NV,
  PROPERTY_SEPARATOR as PS,
} from "../../../src/protocol/message/index.ts";

function record(properties: string): Uint8Array {
  return encodeRecord(
    {
      topic: "T",
      queueId: 0,
      flag: 0,
      body: new TextEncoder().encode("body"),
      properties,
      bornTimestamp: 1,
      bornHost: { ip: new Uint8Array([127, 0, 0, 1]), port: 1 },
      storeHost: { ip: new Uint8Array([127, 0, 0, 1]), port: 2 },
      sysFlag: 0,
      reconsumeTimes: 0,
      preparedTransactionOffset: 0,
    },
    { queueOffset: 0, physicalOffset: 0, storeTimestamp: 1 },
  );
}

describe("recordPropertyLookup", () => {
  const cases: [string, string][] = [
    ["plain", `a${NV}1${PS}ab${NV}2${PS}TAGS${NV}TagA${PS}`],
    ["repeated name: the last non-empty value wins", `a${NV}1${PS}a${NV}3${PS}a${NV}${PS}`],
    ["no trailing separator", `b${NV}x${PS}a${NV}7`],
    ["UTF-8 values", `region${NV}zürich-€${PS}long${NV}${"é".repeat(40)}${PS}`],
    ["entries without a value or name", `${NV}x${PS}a${PS}a${NV}${PS}ab${NV}y`],
    ["empty", ""],
  ];
  for (const [name, props] of cases) {
    test(`${name}: every name answers as decodeProperties does`, () => {
      const lookup = recordPropertyLookup(record(props));
      const decoded = decodeProperties(props);
      for (const key of ["a", "ab", "b", "TAGS", "region", "long", "missing", ""]) {
        expect([key, lookup(key)]).toEqual([key, decoded.get(key)]);
      }
    });
  }
});
