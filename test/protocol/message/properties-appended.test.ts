import { expect, test } from "bun:test";
import { encodeProperties, PropertiesView, pickCanonical } from "../../../src/protocol/message/index.ts";

const view = (entries: [string, string][]) => {
  const s = encodeProperties(new Map(entries));
  return new PropertiesView(s, pickCanonical(s));
};

test("appended adds new keys at the end and keeps the picked ones readable", () => {
  const v = view([
    ["TAGS", "A"],
    ["UNIQ_KEY", "U1"],
  ]).appended({ REAL_TOPIC: "T", REAL_QID: "3" });
  expect(v?.encoded).toBe(
    "TAGS\u0001A\u0002UNIQ_KEY\u0001U1\u0002REAL_TOPIC\u0001T\u0002REAL_QID\u00013\u0002",
  );
  expect([v?.get("TAGS"), v?.get("UNIQ_KEY"), v?.get("REAL_TOPIC"), v?.get("REAL_QID")]).toEqual([
    "A",
    "U1",
    "T",
    "3",
  ]);
});

test("appended declines a key already present or one the view picks", () => {
  expect(view([["REAL_TOPIC", "X"]]).appended({ REAL_TOPIC: "T" })).toBeUndefined();
  expect(view([["TAGS", "A"]]).appended({ DELAY: "2" })).toBeUndefined();
});

test("an appended view answers its added keys as a scan of its string would, and the others too", () => {
  const base = view([
    ["TAGS", "A"],
    ["PGROUP", "G"],
  ]);
  const v = base.appended({ __transactionId__: "X1", REAL_TOPIC: "T", REAL_QID: "3" })!;
  const scanned = new PropertiesView(v.encoded, pickCanonical(v.encoded));
  for (const key of ["TAGS", "PGROUP", "__transactionId__", "REAL_TOPIC", "REAL_QID", "toString", "NONE"]) {
    expect(v.get(key)).toBe(scanned.get(key));
  }
  expect([...v.entries()]).toEqual([...scanned.entries()]);
  // Appending again keeps the first additions readable.
  const again = v.appended({ EXTRA: "E" })!;
  expect([again.get("REAL_TOPIC"), again.get("EXTRA"), again.get("PGROUP")]).toEqual(["T", "E", "G"]);
});
