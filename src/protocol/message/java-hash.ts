/**
 * Java's `String.hashCode` and the tags code derived from it (spec §6.2), used for ConsumeQueue
 * tag filtering and index-file key hashing (§6.4).
 */

/** `String.hashCode`: over UTF-16 code units, `h = 31·h + unit`, wrapping as signed 32-bit. */
export function javaStringHash(s: string): number {
  return javaStringHashFrom(0, s);
}

/** With `seed = javaStringHash(a)`, `javaStringHash(a + s)` without building the concatenation. */
export function javaStringHashFrom(seed: number, s: string): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * Tags code stored in a ConsumeQueue unit: 0 for no/empty tag, else the hash of the whole TAGS
 * value. As a JS number it is already the sign-extended i64 (spec §6.2).
 */
export function tagsCodeOf(tags: string | undefined): number {
  if (tags === undefined || tags.length === 0) return 0;
  if (tags === lastTags) return lastTagsCode;
  lastTagsCode = javaStringHash(tags);
  lastTags = tags;
  return lastTagsCode;
}

// Producers mostly repeat one tag: remember the last one.
let lastTags = "";
let lastTagsCode = 0;
