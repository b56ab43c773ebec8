/**
 * Receipt handles (gateway/receipt-handle.ts): recently issued handles verify by lookup, and the
 * cache never makes an altered, forged or foreign handle pass; it holds at most two generations.
 */
import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { HandleSigner, type LeaseHandle, leaseDeadline } from "../../gateway/receipt-handle.ts";
import { HANDLE_CACHE_GENERATION_MAX, HandleCache } from "../../gateway/receipt-handle-cache.ts";

const SECRET = "test secret";
const lease = (n: number): LeaseHandle => ({
  group: "billing",
  topic: "orders",
  brokerHandle: `${n} 1700000000000 60000 0 0 broker-a 3 ${n} ${n * 1000}`,
});

/** The handle a gateway signs, spelled out with node:crypto's HMAC (the format of the module banner). */
function signedByHand(h: LeaseHandle, secret: string): string {
  const payload = Buffer.from(`${h.group}\n${h.topic}\n${h.brokerHandle}`).toString("base64url");
  const mac = createHmac("sha256", secret).update(`v1.${payload}`).digest("base64url");
  return `v1.${payload}.${mac}`;
}

describe("receipt handles", () => {
  test("a signed handle is HMAC-SHA256 over its payload, so handles of other gateways with the secret verify", () => {
    const signer = new HandleSigner(SECRET);
    expect(signer.sign(lease(1))).toBe(signedByHand(lease(1), SECRET));
    expect(new HandleSigner(SECRET).verify(signedByHand(lease(2), SECRET))).toEqual(lease(2));
  });

  test("non-ASCII names and a payload longer than the signer's scratch sign as the format says", () => {
    const signer = new HandleSigner(SECRET);
    const wide: LeaseHandle = { group: "gruppe-é", topic: "主题-😀", brokerHandle: lease(9).brokerHandle };
    const long: LeaseHandle = { ...lease(10), brokerHandle: `${lease(10).brokerHandle} ${"é".repeat(1500)}` };
    for (const h of [wide, long, lease(11)]) expect(signer.sign(h)).toBe(signedByHand(h, SECRET));
    expect(new HandleSigner(SECRET).verify(signer.sign(wide))).toEqual(wide);
  });

  test("a Bun hasher that throws (a stale BoringSSL error) falls back to node:crypto: same handles, same verdicts", () => {
    const signer = new HandleSigner(SECRET);
    (signer as unknown as { keyed: { copy(): never } }).keyed = {
      copy() {
        throw new Error("error:1e000065:Cipher functions:OPENSSL_internal:BAD_DECRYPT");
      },
    };
    expect(signer.sign(lease(3))).toBe(signedByHand(lease(3), SECRET));
    expect(signer.verify(signedByHand(lease(4), SECRET))).toEqual(lease(4));
    expect(signer.verify(signedByHand(lease(4), "another secret"))).toBeString();
  });

  test("a just-issued handle verifies, twice; altered, forged and foreign copies of it are refused", () => {
    const signer = new HandleSigner(SECRET);
    const good = signer.sign(lease(5));
    const [v, payload, sig] = good.split(".") as [string, string, string];
    const altered = Buffer.from(payload, "base64url").toString().replace(" 5 ", " 6 ");
    const flipped = `${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`;
    const bad = [
      `${v}.${Buffer.from(altered).toString("base64url")}.${sig}`,
      `${v}.${payload}.${flipped}`,
      `${good}x`,
      ` ${good}`,
      new HandleSigner("another secret").sign(lease(5)),
    ];
    expect(bad.map((h) => typeof signer.verify(h))).toEqual(bad.map(() => "string"));
    // Once from the cache, then in full: a handle settled again (a retried ack) still verifies.
    expect([signer.verify(good), signer.verify(good)]).toEqual([lease(5), lease(5)]);
  });

  test("verify hands out a copy: changing what it returned changes no later answer", () => {
    const signer = new HandleSigner(SECRET);
    const h = signer.sign(lease(7));
    (signer.verify(h) as LeaseHandle).group = "mallory";
    expect(signer.verify(h)).toEqual(lease(7));
  });
});

describe("the handle cache", () => {
  test("holds at most two generations: the newest handles are found, the oldest dropped (and verify in full)", () => {
    const cache = new HandleCache(4);
    const signer = new HandleSigner(SECRET, cache);
    const handles = Array.from({ length: 20 }, (_, i) => signer.sign(lease(i)));
    expect(cache.size).toBe(8);
    expect(cache.take(handles[0]!)).toBeUndefined();
    expect(cache.take(handles[19]!)).toEqual(lease(19));
    expect(cache.take(handles[19]!)).toBeUndefined();
    expect(signer.verify(handles[0]!)).toEqual(lease(0));
    expect(cache.size).toBe(7);
  });

  test("the default bound is two generations of 8192", () => {
    const cache = new HandleCache();
    for (let i = 0; i < 4 * HANDLE_CACHE_GENERATION_MAX; i++) cache.add(`h${i}`, lease(i));
    expect([HANDLE_CACHE_GENERATION_MAX, cache.size]).toEqual([8192, 2 * 8192]);
  });
});

describe("the lease deadline of a broker handle", () => {
  /** The reading leaseDeadline had before it summed digits in place: Number of each field's slice. */
  const byNumber = (h: string) => {
    const a = h.indexOf(" ");
    const b = h.indexOf(" ", a + 1);
    const c = h.indexOf(" ", b + 1);
    return Number(h.slice(a + 1, b)) + Number(h.slice(b + 1, c));
  };

  test("is popTime + invisibleTime", () => {
    expect(leaseDeadline(lease(5).brokerHandle)).toBe(1_700_000_060_000);
  });

  test("reads any text as Number of the field slices does: digits, signs, fractions, too few fields", () => {
    const field = fc.oneof(
      fc.stringMatching(/^\d{1,20}$/),
      fc.constantFrom("", "-5", "+7", "1.5", "1e3", "0x10", "abc", " "),
    );
    fc.assert(
      fc.property(fc.array(field, { minLength: 1, maxLength: 9 }), (fields) => {
        const h = fields.join(" ");
        expect(Object.is(leaseDeadline(h), byNumber(h))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
