/**
 * Handles this gateway signed lately, so the ack that usually follows within a second verifies by
 * a lookup instead of decoding and recomputing the HMAC. Only the exact text issued is found: an
 * altered or forged handle is a different string, misses, and is verified (and refused) in full.
 *
 * Bounded by two generations: the current one takes new handles until it holds
 * HANDLE_CACHE_GENERATION_MAX, then becomes the previous one and the older is dropped whole, so at
 * most 2 × 8192 entries are held. An entry is the handle text (about 300 one-byte characters for a
 * broker handle of 150) and its LeaseHandle (the broker handle, about 150; group and topic strings
 * are shared with the request that received), with map and object overhead about 550 bytes: some
 * 9 MiB at most. A found entry is removed (a handle is settled once; a repeat verifies in full).
 */
import type { LeaseHandle } from "./receipt-handle.ts";

/** Entries per generation; two generations are held. */
export const HANDLE_CACHE_GENERATION_MAX = 8192;

export class HandleCache {
  private current = new Map<string, LeaseHandle>();
  private previous = new Map<string, LeaseHandle>();

  constructor(private readonly generationMax = HANDLE_CACHE_GENERATION_MAX) {}

  add(handle: string, content: LeaseHandle): void {
    if (this.current.size >= this.generationMax) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(handle, content);
  }

  /** The content of a handle issued here lately, removed from the cache; undefined if not held. */
  take(handle: string): LeaseHandle | undefined {
    const hit = this.current.get(handle);
    if (hit) {
      this.current.delete(handle);
      return hit;
    }
    const old = this.previous.get(handle);
    if (old) this.previous.delete(handle);
    return old;
  }

  /** Entries held (at most 2 × the generation size). */
  get size(): number {
    return this.current.size + this.previous.size;
  }
}
