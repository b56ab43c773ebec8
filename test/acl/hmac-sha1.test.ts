/**
 * The two-hash HMAC-SHA1 against node:crypto's createHmac (itself checked against RFC 2202's
 * vectors below): every secret length around the 64-byte block, text with multi-byte characters,
 * bodies on both sides of the scratch buffer's limit, one key reused across requests.
 */
import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { HmacSha1 } from "../../src/acl/hmac-sha1.ts";

const reference = (secret: string, text: string, body: Uint8Array | null) => {
  const h = createHmac("sha1", Buffer.from(secret, "utf8")).update(text, "utf8");
  if (body) h.update(body);
  return h.digest("base64");
};

describe("HmacSha1", () => {
  test("RFC 2202 test case 2: key 'Jefe', 'what do ya want for nothing?'", () => {
    // effcdf6ae5eb2fa2d27416d5f184df9c259a7c79 in hex
    expect(
      Buffer.from(new HmacSha1("Jefe").sign("what do ya want for nothing?", null), "base64").toString("hex"),
    ).toBe("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
  });

  test("RFC 2202 test case 6: an 80-byte key is hashed first", () => {
    const key = String.fromCharCode(0xaa).repeat(80);
    // The RFC's key is 80 bytes of 0xaa; as a JS string that is 80 × U+00AA, two UTF-8 bytes each,
    // so compare with createHmac on the same UTF-8 secret rather than with the RFC digest.
    const text = "Test Using Larger Than Block-Size Key - Hash Key First";
    expect(new HmacSha1(key).sign(text, null)).toBe(reference(key, text, null));
  });

  test("secret lengths 0..130, text with multi-byte characters, optional body", () => {
    for (let n = 0; n <= 130; n++) {
      const secret = "s€".repeat(n).slice(0, n);
      const key = new HmacSha1(secret);
      const body = n % 3 === 0 ? null : new Uint8Array(n * 7).fill(n);
      const text = `AccessKey${n}ü✓😀topic`;
      expect(key.sign(text, body)).toBe(reference(secret, text, body));
    }
  });

  test("bodies past the scratch limit are streamed and give the same signature", () => {
    const key = new HmacSha1("secret");
    for (const size of [64 * 1024 - 200, 64 * 1024, 64 * 1024 + 1, 4 * 1024 * 1024]) {
      const body = new Uint8Array(size).map((_, i) => i & 0xff);
      expect(key.sign("values", body)).toBe(reference("secret", "values", body));
    }
  });

  test("any secret, text and body, one key reused: same as createHmac", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 100 }),
        fc.array(
          fc.tuple(fc.string({ unit: "grapheme", maxLength: 300 }), fc.uint8Array({ maxLength: 3000 })),
          {
            minLength: 1,
            maxLength: 5,
          },
        ),
        (secret, requests) => {
          const key = new HmacSha1(secret);
          for (const [text, body] of requests)
            expect(key.sign(text, body)).toBe(reference(secret, text, body));
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** `parts` as a record whose keys, in `keys` order, give the parts in order. */
function asFields(parts: readonly string[]): { values: Record<string, string>; keys: string[] } {
  const values: Record<string, string> = {};
  const keys = parts.map((part, i) => {
    const key = `k${parts.length - i}`;
    values[key] = part;
    return key;
  });
  return { values, keys };
}

describe("signFields", () => {
  test("any values and body: the same as signing the joined text, and as createHmac over the joined bytes", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 100 }),
        fc.array(
          fc.tuple(
            // ASCII parts (the fast path), any UTF-16 (lone and split surrogates too), long ones.
            fc.array(
              fc.oneof(
                fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) }),
                fc.string({ unit: "binary-ascii" }),
                fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
                fc.string({ unit: "grapheme", maxLength: 300 }),
              ),
              { maxLength: 16 },
            ),
            fc.option(fc.uint8Array({ maxLength: 3000 }), { nil: null }),
          ),
          { minLength: 1, maxLength: 5 },
        ),
        (secret, requests) => {
          const key = new HmacSha1(secret);
          for (const [parts, body] of requests) {
            const joined = parts.join("");
            const expected = reference(secret, joined, body ?? new Uint8Array());
            const { values, keys } = asFields(parts);
            expect(key.signFields(values, keys, body)).toBe(expected);
            expect(key.sign(joined, body)).toBe(expected);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  test("a surrogate pair split between two values is signed as the pair, as Java joins before encoding", () => {
    const key = new HmacSha1("secret");
    const grin = "😀";
    const { values, keys } = asFields([`a${grin[0]}`, `${grin[1]}b`]);
    expect(key.signFields(values, keys, null)).toBe(reference("secret", `a${grin}b`, new Uint8Array()));
  });

  test("only the values of the keys given, in the order given; a key with no value adds nothing", () => {
    const key = new HmacSha1("secret");
    const values = { a: "1", b: "2", c: "3" };
    expect(key.signFields(values, ["c", "missing", "a"], null)).toBe(reference("secret", "31", null));
  });

  test("values past the scratch limit are streamed and give the same signature", () => {
    const key = new HmacSha1("secret");
    const parts = ["x".repeat(40_000), "y".repeat(40_000)];
    const body = new Uint8Array(1000).fill(7);
    const { values, keys } = asFields(parts);
    expect(key.signFields(values, keys, body)).toBe(reference("secret", parts.join(""), body));
  });

  test("values that outgrow the scratch buffer, then fit: each signed as createHmac signs it", () => {
    const key = new HmacSha1("secret");
    const body = new Uint8Array(3000).fill(9);
    for (const size of [10, 2000, 5000, 10, 20_000, 10]) {
      const { values, keys } = asFields(["v".repeat(size), "w"]);
      expect(key.signFields(values, keys, body)).toBe(reference("secret", `${"v".repeat(size)}w`, body));
    }
  });
});

describe("verifyFields", () => {
  test("accepts exactly the signature createHmac computes, on every path (ASCII, other text, streamed)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 40 }),
        fc.array(
          fc.oneof(
            fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) }),
            fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
          ),
          { maxLength: 12 },
        ),
        fc.option(fc.uint8Array({ maxLength: 3000 }), { nil: null }),
        fc.nat(27),
        (secret, parts, body, at) => {
          const key = new HmacSha1(secret);
          const { values, keys } = asFields(parts);
          const good = reference(secret, parts.join(""), body ?? new Uint8Array());
          expect(key.verifyFields(values, keys, body, good)).toBe(true);
          // Any one character changed, anywhere, is refused (the pad included).
          const other = good[at] === "A" ? "B" : "A";
          expect(key.verifyFields(values, keys, body, good.slice(0, at) + other + good.slice(at + 1))).toBe(
            false,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  test("refuses a missing, a shorter, a longer or an unpadded signature", () => {
    const key = new HmacSha1("secret");
    const { values, keys } = asFields(["a", "b"]);
    const good = reference("secret", "ab", new Uint8Array());
    expect(key.verifyFields(values, keys, null, good)).toBe(true);
    for (const bad of [undefined, "", good.slice(0, 27), `${good}=`, `${good.slice(0, 27)}A`]) {
      expect(key.verifyFields(values, keys, null, bad)).toBe(false);
    }
  });

  test("content too large for the scratch buffer is verified through the streamed signature", () => {
    const key = new HmacSha1("secret");
    const parts = ["x".repeat(40_000), "y"];
    const body = new Uint8Array(70_000).fill(3);
    const { values, keys } = asFields(parts);
    const good = reference("secret", parts.join(""), body);
    expect(key.verifyFields(values, keys, body, good)).toBe(true);
    expect(key.verifyFields(values, keys, new Uint8Array(70_000).fill(4), good)).toBe(false);
  });
});
