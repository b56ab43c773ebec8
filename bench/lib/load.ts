/**
 * Closed-loop load: `inflight` workers each issue one call after another until `durationMs` ends.
 * Returns calls per second. A short warm-up runs first so JIT tiers settle.
 */
export async function closedLoop(
  call: () => Promise<unknown>,
  inflight: number,
  durationMs: number,
): Promise<number> {
  await runFor(call, inflight, Math.min(300, durationMs / 4));
  return runFor(call, inflight, durationMs);
}

async function runFor(call: () => Promise<unknown>, inflight: number, durationMs: number): Promise<number> {
  const { calls, ms } = await runSlice(call, inflight, durationMs);
  return (calls * 1000) / ms;
}

/** `inflight` workers calling `call` one call after another for `durationMs`: calls made and ms taken. */
export async function runSlice(
  call: () => Promise<unknown>,
  inflight: number,
  durationMs: number,
): Promise<{ calls: number; ms: number }> {
  let calls = 0;
  const start = performance.now();
  const end = start + durationMs;
  const worker = async () => {
    while (performance.now() < end) {
      await call();
      calls++;
    }
  };
  await Promise.all(Array.from({ length: inflight }, worker));
  return { calls, ms: performance.now() - start };
}

/** A raw TCP echo client held open, so measures of it can alternate with others (see `alternate`). */
export interface RawEcho {
  /** Round trips per second over `ms`, `inflight` frames outstanding at a time. */
  measure(ms: number): Promise<number>;
  close(): void;
}

/**
 * A raw TCP client for the echo ceiling: sends `frame`, waits for as many bytes back, `inflight`
 * frames outstanding at a time. A short warm-up runs before it is returned.
 */
export async function openRawEcho(port: number, frame: Uint8Array, inflight: number): Promise<RawEcho> {
  let received = 0;
  let completed = 0;
  let measuring = false;
  let stopAt = 0;
  let finish: () => void = () => {};
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(s, chunk) {
        received += chunk.length;
        while (received >= frame.length) {
          received -= frame.length;
          completed++;
          if (performance.now() < stopAt) s.write(frame);
          else if (measuring) finish();
        }
      },
    },
  });
  socket.setNoDelay(true);
  const measure = async (ms: number) => {
    completed = 0;
    received = 0;
    const start = performance.now();
    stopAt = start + ms;
    const ended = new Promise<void>((resolve) => (finish = resolve));
    for (let i = 0; i < inflight; i++) socket.write(frame);
    measuring = true;
    await ended;
    measuring = false;
    const rate = (completed * 1000) / (performance.now() - start);
    // let the tail drain before the next measure
    await Bun.sleep(20);
    return rate;
  };
  await measure(300);
  return { measure, close: () => socket.end() };
}

/** Round trips per second of a raw echo client over `durationMs`, after a warm-up. */
export async function rawEchoRate(
  port: number,
  frame: Uint8Array,
  inflight: number,
  durationMs: number,
): Promise<number> {
  const echo = await openRawEcho(port, frame, inflight);
  const rate = await echo.measure(durationMs);
  echo.close();
  return rate;
}

/**
 * Two measures taken in `slices` alternating slices of `durationMs / slices` each (the first side
 * alternating too): this machine's speed drifts by 2x within seconds, and slices put the drift
 * on both sides alike. Returns each side's mean rate.
 */
export async function alternate(
  a: (ms: number) => Promise<number>,
  b: (ms: number) => Promise<number>,
  durationMs: number,
  slices = 6,
): Promise<[number, number]> {
  const ms = durationMs / slices;
  let sumA = 0;
  let sumB = 0;
  for (let k = 0; k < slices; k++) {
    if (k % 2 === 0) {
      sumA += await a(ms);
      sumB += await b(ms);
    } else {
      sumB += await b(ms);
      sumA += await a(ms);
    }
  }
  return [sumA / slices, sumB / slices];
}
