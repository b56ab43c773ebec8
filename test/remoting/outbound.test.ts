/**
 * Outbound: whatever mix of small frames and in-place large bodies is queued, and however little
 * the socket takes per write, the bytes on the wire are the frames' encodings in order, and the
 * outbox being reused by the next flush never corrupts what is still waiting for drain.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { encodeFrame, prepareFrame, RemotingCommand } from "../../src/remoting/index.ts";
import { type ByteSink, OUTBOX_COPY_BODY_BYTES_MAX, Outbound } from "../../src/remoting/outbound.ts";

/** A socket that takes at most the next allowance per write, and records what it took. */
class StingySink implements ByteSink {
  readonly taken: Uint8Array[] = [];
  constructor(private readonly allowances: number[]) {}
  write(bytes: Uint8Array): number {
    const n = Math.min(bytes.length, this.allowances.length > 0 ? this.allowances.shift()! : bytes.length);
    // A copy, as the kernel takes one (Buffer#slice would be a view into the reused outbox).
    this.taken.push(Uint8Array.prototype.slice.call(bytes, 0, n));
    return n;
  }
  get bytes(): Buffer {
    return Buffer.concat(this.taken);
  }
}

function command(opaque: number, bodyBytes: number): RemotingCommand {
  const body = bodyBytes > 0 ? new Uint8Array(bodyBytes).fill(opaque & 0xff) : null;
  return new RemotingCommand({ code: 11, opaque, extFields: { n: String(opaque) }, body });
}

const bodySize = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 1, max: 300 }),
  fc.integer({ min: OUTBOX_COPY_BODY_BYTES_MAX + 1, max: OUTBOX_COPY_BODY_BYTES_MAX * 3 }),
);

describe("Outbound", () => {
  test("bytes written under partial writes are the frames' encodings in order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(bodySize, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: 0, max: 70_000 }), { maxLength: 40 }),
        (ticks, allowances) => {
          const sink = new StingySink(allowances);
          const out = new Outbound();
          const expected: Uint8Array[] = [];
          let opaque = 0;
          // Each tick queues frames and flushes; the socket drains whenever it is blocked.
          for (const sizes of ticks) {
            for (const size of sizes) {
              const cmd = command(++opaque, size);
              expected.push(encodeFrame(cmd));
              out.push(prepareFrame(cmd));
            }
            out.flush(sink);
            while (out.blocked && sink.taken.length < 10_000) out.drain(sink);
          }
          expect({ unsent: out.unsent, equal: sink.bytes.equals(Buffer.concat(expected)) }).toEqual({
            unsent: 0,
            equal: true,
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  test("a large body is written from where it lies, not copied", () => {
    const cmd = command(1, OUTBOX_COPY_BODY_BYTES_MAX * 2);
    const written: Uint8Array[] = [];
    const out = new Outbound();
    out.push(prepareFrame(cmd));
    out.flush({
      write: (bytes) => {
        written.push(bytes);
        return bytes.length;
      },
    });
    expect(written.map((w) => w.buffer === cmd.body!.buffer)).toEqual([false, true]);
  });

  test("unsent counts queued and backlogged bytes; clear drops them", () => {
    const out = new Outbound();
    const frame = prepareFrame(command(1, 10));
    out.push(frame);
    expect(out.unsent).toBe(frame.size);
    out.flush(new StingySink([5]));
    expect({ unsent: out.unsent, blocked: out.blocked }).toEqual({ unsent: frame.size - 5, blocked: true });
    out.clear();
    expect({ unsent: out.unsent, blocked: out.blocked }).toEqual({ unsent: 0, blocked: false });
  });

  test("a closed socket (write returns -1) reports false and keeps nothing", () => {
    const out = new Outbound();
    out.push(prepareFrame(command(1, 10)));
    expect(out.flush({ write: () => -1 })).toBe(false);
    expect(out.unsent).toBe(0);
  });
});
