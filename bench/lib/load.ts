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

/**
 * A raw TCP client for the echo ceiling: sends `frame`, waits for as many bytes back, `inflight`
 * frames outstanding at a time. Returns round trips per second.
 */
export async function rawEchoRate(
  port: number,
  frame: Uint8Array,
  inflight: number,
  durationMs: number,
): Promise<number> {
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
  const phase = async (ms: number) => {
    completed = 0;
    received = 0;
    const start = performance.now();
    stopAt = start + ms;
    const ended = new Promise<void>((resolve) => (finish = resolve));
    for (let i = 0; i < inflight; i++) socket.write(frame);
    measuring = true;
    await ended;
    measuring = false;
    return (completed * 1000) / (performance.now() - start);
  };
  await phase(Math.min(300, durationMs / 4));
  // let the warm-up's tail drain
  await Bun.sleep(50);
  const rate = await phase(durationMs);
  socket.end();
  return rate;
}
