import { expect, test } from "bun:test";
import fc from "fast-check";
import { JSON_HEADER_DEPTH_MAX, nestedDeeperThan } from "../../src/remoting/json-header.ts";

const utf8 = new TextEncoder();

/** The plain byte-at-a-time scan the fast check must agree with. */
function referenceDeeperThan(json: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = String.fromCharCode(json[i]!);
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === "{" || c === "[") {
      if (++depth > max) return true;
    } else if (c === "}" || c === "]") {
      depth--;
    }
  }
  return false;
}

/** Text made of the bytes that matter to the scan, and a few that do not. */
const jsonish = fc
  .array(fc.constantFrom("{", "}", "[", "]", '"', "\\", "a", ":", ",", "é"), { maxLength: 80 })
  .map((parts) => parts.join(""));

test("the fast nesting check agrees with a byte-at-a-time scan on any mix of brackets, quotes and escapes", () => {
  fc.assert(
    fc.property(jsonish, fc.integer({ min: 0, max: 10 }), (text, max) => {
      const bytes = utf8.encode(text);
      expect(nestedDeeperThan(bytes, max)).toBe(referenceDeeperThan(bytes, max));
    }),
    { numRuns: 5000 },
  );
});

test("brackets inside strings, escaped quotes included, do not count as nesting", () => {
  const inString = `{"code":1,"extFields":{"a":"${"[{".repeat(50)}\\"${"[".repeat(50)}"},"opaque":1}`;
  expect(nestedDeeperThan(utf8.encode(inString), JSON_HEADER_DEPTH_MAX)).toBe(false);
  const deep = `{"a":${"[".repeat(JSON_HEADER_DEPTH_MAX)}${"]".repeat(JSON_HEADER_DEPTH_MAX)}}`;
  expect(nestedDeeperThan(utf8.encode(deep), JSON_HEADER_DEPTH_MAX)).toBe(true);
  const justDeepEnough = `{"a":${"[".repeat(JSON_HEADER_DEPTH_MAX - 1)}${"]".repeat(JSON_HEADER_DEPTH_MAX - 1)}}`;
  expect(nestedDeeperThan(utf8.encode(justDeepEnough), JSON_HEADER_DEPTH_MAX)).toBe(false);
});

test("hostile headers of 256 KiB are checked in linear time: backslash runs, quotes, brackets in strings", () => {
  const size = 256 * 1024;
  const hostile = [
    "[".repeat(size),
    `"${"\\".repeat(size - 2)}"`,
    `"${'\\"'.repeat(size / 2 - 1)}"`,
    `"${"[".repeat(size - 2)}"`,
    `"${'\\\\\\"['.repeat(size / 5)}`,
    '{"a":"\\\\\\"'.repeat(size / 10),
  ];
  for (const text of hostile) {
    const bytes = utf8.encode(text);
    const started = performance.now();
    for (let i = 0; i < 10; i++) nestedDeeperThan(bytes, JSON_HEADER_DEPTH_MAX);
    // A quadratic scan of 256 KiB takes seconds; a linear one, about a millisecond per pass.
    expect(performance.now() - started).toBeLessThan(1000);
    expect(nestedDeeperThan(bytes, JSON_HEADER_DEPTH_MAX)).toBe(
      referenceDeeperThan(bytes, JSON_HEADER_DEPTH_MAX),
    );
  }
});
