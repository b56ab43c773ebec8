/**
 * The allocator setting RocketBun's servers run with. Bun's allocator (mimalloc) gives freed memory
 * back to the system shortly after it is freed (100 ms) and faults it in again on the next
 * allocations; under a broker's steady churn of request and message buffers that is a quarter of the
 * server's CPU on plain sends and more than half of it on the gateway's WebSocket push (README,
 * Benchmarks). `-1` keeps freed memory for reuse instead: the resident size then stays at its peak,
 * which the broker's memory budgets bound, as a JVM broker keeps its heap.
 *
 * mimalloc reads its options once, when the process starts, so the value must be in the environment
 * the process is started with: bin/rocketbun (and so `npm start`) sets it unless it is already set,
 * and the test and benchmark launchers use `withServerAllocatorEnv`. An operator who prefers memory
 * given back sets MIMALLOC_PURGE_DELAY=100 (mimalloc's own default) before starting.
 */

export const SERVER_ALLOCATOR_ENV: Readonly<Record<string, string>> = Object.freeze({
  MIMALLOC_PURGE_DELAY: "-1",
});

/** `env` with the server allocator settings it does not set itself. */
export function withServerAllocatorEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  return { ...SERVER_ALLOCATOR_ENV, ...definedOnly(env) };
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * A line for the startup log when this process runs without the setting (started as
 * `bun src/cli/main.ts`, not through bin/rocketbun), or null when it has it or the operator chose.
 */
export function allocatorNote(env: Readonly<Record<string, string | undefined>>): string | null {
  if (env.MIMALLOC_PURGE_DELAY !== undefined) return null;
  return (
    "MIMALLOC_PURGE_DELAY is not set: freed memory is given back to the system and faulted in again, " +
    "which costs the server CPU under load; bin/rocketbun sets it to -1 (see README, Benchmarks)"
  );
}
