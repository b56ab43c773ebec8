/**
 * Property values parsed as Java's Integer.parseInt / Long.parseLong parse them: an optional sign
 * and ASCII digits, within the type's range; anything else (`"1.5"`, `"1e3"`, `" 7"`) is refused.
 */

const INTEGER_TEXT = /^[+-]?\d+$/;
const LONG_MAX = 2n ** 63n - 1n;
const LONG_MIN = -(2n ** 63n);

/** The value of a Java long as a number (rounded beyond 2^53), or undefined if Java would throw. */
export function parseJavaLong(text: string): number | undefined {
  if (!INTEGER_TEXT.test(text)) return undefined;
  const n = Number(text);
  if (Number.isSafeInteger(n)) return n;
  const big = BigInt(text);
  return big < LONG_MIN || big > LONG_MAX ? undefined : n;
}

/** The value of a Java int, or undefined if Java would throw. */
export function parseJavaInt(text: string): number | undefined {
  if (!INTEGER_TEXT.test(text)) return undefined;
  const n = Number(text);
  return n < -0x80000000 || n > 0x7fffffff ? undefined : n;
}
