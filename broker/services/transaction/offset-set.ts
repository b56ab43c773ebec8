/**
 * A set of queue offsets as bits from a base that only moves up: the half offsets op records
 * finished, which are dense (almost every half is ended, mostly in order) and dropped from below
 * as the checker's walk passes them. A bit per offset instead of a Set entry: no rehash as the
 * set grows to a check interval's transactions (1.5 million in Java's default minute at 25,000
 * a second), and nothing for the collector to trace.
 * Offsets below the base or too far above it (an op record naming a far offset) are kept in a
 * plain Set instead, so any offset can be added without the bits growing past BITS_MAX.
 */

/** Most offsets the bits span: 2^25 bits, 4 MiB. */
const BITS_MAX = 2 ** 25;
const INITIAL_WORDS = 1024;

/** Set bits of a 32-bit word (int32 arithmetic throughout). */
function popcount(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

export class OffsetSet {
  private words = new Uint32Array(INITIAL_WORDS);
  /** The offset of bit 0 of words[0]; a multiple of 32. */
  private base = 0;
  private bits = 0;
  private readonly outside = new Set<number>();

  get size(): number {
    return this.bits + this.outside.size;
  }

  has(offset: number): boolean {
    const i = offset - this.base;
    if (i >= 0 && i < this.words.length * 32) return (this.words[i >>> 5]! & (1 << (i & 31))) !== 0;
    return this.outside.has(offset);
  }

  /** The first offset in [from, limit) not in the set; `limit` if there is none. */
  firstAbsent(from: number, limit: number): number {
    const span = this.words.length * 32;
    for (let o = from; o < limit; ) {
      const i = o - this.base;
      // A word of 32 set bits is passed whole: a walk passes runs of thousands.
      if (i >= 0 && (i & 31) === 0 && i + 32 <= span && this.words[i >>> 5] === 0xffffffff) {
        o += 32;
        continue;
      }
      if (!this.has(o)) return o;
      o++;
    }
    return limit;
  }

  add(offset: number): void {
    if (this.bits === 0 && offset >= this.base && Number.isSafeInteger(offset)) {
      // Empty bits (all words 0) may move to any offset above: the first add after a restart's
      // load is far above 0, and the words must not span the gap.
      this.base = offset - (offset % 32);
    }
    const i = offset - this.base;
    if (!Number.isSafeInteger(offset) || i < 0 || i >= BITS_MAX) {
      this.outside.add(offset);
      return;
    }
    if (i >= this.words.length * 32) this.grow(i);
    const w = i >>> 5;
    const bit = 1 << (i & 31);
    if ((this.words[w]! & bit) === 0) {
      this.words[w] = this.words[w]! | bit;
      this.bits++;
    }
  }

  /**
   * Removes every offset below `next`, calling `removed` for each, in ascending order for the
   * bits and then in insertion order for the others.
   */
  removeBelow(next: number, removed?: (offset: number) => void): void {
    const end = Math.min(next - this.base, this.words.length * 32);
    if (end > 0) {
      const whole = end >>> 5;
      for (let w = 0; w <= whole && w < this.words.length; w++) {
        let word = this.words[w]!;
        if (word === 0) continue;
        if (w === whole) word &= (1 << (end & 31)) - 1; // only the bits below `next`
        if (word === 0) continue;
        this.bits -= popcount(word);
        if (removed) for (let b = 0; b < 32; b++) if (word & (1 << b)) removed(this.base + w * 32 + b);
        this.words[w] = this.words[w]! & ~word;
      }
      // Keep the partly cleared word first: the base stays a multiple of 32.
      this.words.copyWithin(0, whole);
      this.words.fill(0, this.words.length - whole);
      this.base += whole * 32;
    }
    for (const o of this.outside) {
      if (o >= next) continue;
      this.outside.delete(o);
      removed?.(o);
    }
  }

  private grow(index: number): void {
    let length = this.words.length * 2;
    while (length * 32 <= index) length *= 2;
    const words = new Uint32Array(Math.min(length, BITS_MAX / 32));
    words.set(this.words);
    this.words = words;
  }
}
