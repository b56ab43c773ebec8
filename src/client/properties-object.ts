/**
 * A properties string (spec §2.1) parsed straight into a plain object, for consumed messages.
 */
import { MessageConst, scanProperties } from "../protocol/message/index.ts";
import { setOwn } from "../remoting/own-property.ts";

/**
 * The well-known property names by length and first character: reusing the constant spares
 * hashing a fresh key string when it is set on the object.
 */
const KNOWN_NAMES = new Map<number, readonly string[]>();
for (const name of Object.values(MessageConst)) {
  const key = name.length * 0x1_0000 + name.charCodeAt(0);
  KNOWN_NAMES.set(key, [...(KNOWN_NAMES.get(key) ?? []), name]);
}

function propertyName(s: string, start: number, end: number): string {
  const known = KNOWN_NAMES.get((end - start) * 0x1_0000 + s.charCodeAt(start));
  if (known !== undefined) for (const name of known) if (s.startsWith(name, start)) return name;
  return s.slice(start, end);
}

/**
 * Properties straight into an object, by Java's `string2messageProperties` rules (the same as
 * decodeProperties): an entry needs a non-empty name and value; a later duplicate wins.
 */
export function propertiesObject(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  scanProperties(s, (start, sep, end) => {
    setOwn(out, propertyName(s, start, sep), s.slice(sep + 1, end));
  });
  return out;
}
