/**
 * The unsent side of a TCP connection: frames queued in this tick, coalesced into as few writes
 * as possible, and what the socket did not take yet, written again on `drain` (Bun's write may be
 * partial, style habit 10). Small frames are copied into one reused outbox so a burst goes out in
 * one write; a large body is written from where it lies, never copied, so a 1 MiB pull response
 * costs no extra megabytes of garbage (it used to be copied into the outbox, then its unwritten
 * rest copied again).
 */
import { type PreparedFrame, writeFrame, writeFrameHead } from "./frame.ts";

/** Bodies up to this size are copied into the outbox; bigger ones are written in place. */
export const OUTBOX_COPY_BODY_BYTES_MAX = 64 * 1024;
const OUTBOX_INITIAL_BYTES = 64 * 1024;
/** A burst may grow the outbox; beyond this it is dropped after use, not kept per idle connection. */
const OUTBOX_KEEP_BYTES = 1024 * 1024;

/** Where the bytes go: Bun's Socket.write (bytes taken, or -1 when the socket is closed). */
export interface ByteSink {
  write(bytes: Uint8Array): number;
}

export class Outbound {
  /** Frames waiting for this tick's flush, headers serialized, bodies not yet copied. */
  private queued: PreparedFrame[] = [];
  private queuedBytes = 0;
  /** Reused between flushes for frame heads and small frames. */
  private outbox: Buffer = Buffer.allocUnsafe(OUTBOX_INITIAL_BYTES);
  /** Bytes the socket did not take yet, in order; none of them lives in the outbox. */
  private backlog: Uint8Array[] = [];
  private backlogBytes = 0;

  /** Bytes queued or waiting for the socket. */
  get unsent(): number {
    return this.queuedBytes + this.backlogBytes;
  }

  get hasQueued(): boolean {
    return this.queuedBytes > 0;
  }

  /** True while the socket has not taken everything given to it (wait for drain). */
  get blocked(): boolean {
    return this.backlogBytes > 0;
  }

  push(frame: PreparedFrame): void {
    this.queued.push(frame);
    this.queuedBytes += frame.size;
  }

  /** Writes the queued frames unless the socket is blocked. False: the socket is closed. */
  flush(sink: ByteSink): boolean {
    if (this.blocked || this.queuedBytes === 0) return true;
    const frames = this.queued;
    this.queued = [];
    this.queuedBytes = 0;
    let copied = 0;
    for (const frame of frames) copied += frame.size - inPlaceBodyBytes(frame);
    if (this.outbox.length < copied)
      this.outbox = Buffer.allocUnsafe(Math.max(copied, this.outbox.length * 2));
    const out = this.outbox;
    // Segments in wire order; `inOutbox` marks those that must be copied if left unwritten.
    const segments: Uint8Array[] = [];
    const inOutbox: boolean[] = [];
    let pos = 0;
    let start = 0;
    for (const frame of frames) {
      const body = frame.cmd.body;
      if (inPlaceBodyBytes(frame) === 0) {
        writeFrame(frame, out, pos);
        pos += frame.size;
        continue;
      }
      pos += writeFrameHead(frame, out, pos);
      segments.push(out.subarray(start, pos), body!);
      inOutbox.push(true, false);
      start = pos;
    }
    if (pos > start) {
      segments.push(out.subarray(start, pos));
      inOutbox.push(true);
    }
    const open = this.writeSegments(sink, segments, inOutbox);
    if (this.outbox.length > OUTBOX_KEEP_BYTES) this.outbox = Buffer.allocUnsafe(OUTBOX_INITIAL_BYTES);
    return open;
  }

  /** Writes what the socket did not take before (on drain). False: the socket is closed. */
  drain(sink: ByteSink): boolean {
    const segments = this.backlog;
    this.backlog = [];
    this.backlogBytes = 0;
    return this.writeSegments(
      sink,
      segments,
      segments.map(() => false),
    );
  }

  /** Forgets everything unsent (the connection closed). */
  clear(): void {
    this.queued = [];
    this.queuedBytes = 0;
    this.backlog = [];
    this.backlogBytes = 0;
  }

  private writeSegments(sink: ByteSink, segments: Uint8Array[], inOutbox: boolean[]): boolean {
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i]!;
      const written = sink.write(seg);
      if (written < 0) {
        this.clear();
        return false;
      }
      if (written === seg.length) continue;
      for (let j = i; j < segments.length; j++) {
        let rest = j === i ? seg.subarray(written) : segments[j]!;
        // The outbox is reused by the next flush: what is left of it must be copied out.
        if (inOutbox[j]) rest = Uint8Array.prototype.slice.call(rest);
        this.backlog.push(rest);
        this.backlogBytes += rest.length;
      }
      return true;
    }
    return true;
  }
}

function inPlaceBodyBytes(frame: PreparedFrame): number {
  const n = frame.cmd.body?.length ?? 0;
  return n > OUTBOX_COPY_BODY_BYTES_MAX ? n : 0;
}
