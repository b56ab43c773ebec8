/**
 * Runs started roles until a signal: starts them in order, stops them in reverse order on the first
 * SIGINT/SIGTERM, and exits at once with 130 on the second. A stop that overruns its timeout exits
 * with 1. Either forced exit first logs one line naming what the process was still waiting for, so a
 * person (and the next start's abnormal recovery) knows the stop was not clean. A failed start stops
 * what already runs.
 */
import type { Role } from "./roles.ts";

export type StopSignal = "SIGINT" | "SIGTERM";

/** The parts of `process` the lifecycle needs, so tests can drive it without real signals. */
export interface LifecycleHost {
  onSignal(signal: StopSignal, handler: () => void): void;
  offSignal(signal: StopSignal, handler: () => void): void;
  exit(code: number): void;
  info(message: string): void;
  error(message: string): void;
}

export interface RoleStep {
  readonly title: string;
  readonly start: () => Promise<Role>;
}

export interface LifecycleOptions {
  /** Milliseconds the stop of all roles may take before the process exits anyway. */
  readonly stopTimeoutMs?: number;
}

export const FORCED_EXIT_CODE = 130;
export const STOP_TIMEOUT_EXIT_CODE = 1;
/**
 * Generous on purpose: a broker's stop flushes the store, and an exit before that finishes costs the
 * next start an abnormal recovery. Only a stop that is stuck should reach it.
 */
export const DEFAULT_STOP_TIMEOUT_MS = 60_000;
const SIGNALS: readonly StopSignal[] = ["SIGINT", "SIGTERM"];

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** What the process waits for right now, for the forced-exit line. */
interface Progress {
  waitingFor: string;
}

async function stopAll(running: Role[], host: LifecycleHost, progress: Progress): Promise<boolean> {
  let clean = true;
  for (const role of running.reverse()) {
    host.info(`stopping ${role.name}`);
    progress.waitingFor = `${role.name} to stop`;
    try {
      await role.stop();
    } catch (err) {
      clean = false;
      host.error(`${role.name} did not stop cleanly: ${describe(err)}`);
    }
  }
  // A person watching the terminal sees the process finished on purpose, not died.
  if (clean && running.length > 0) host.info(`stopped: ${running.map((r) => r.name).join(", ")}`);
  progress.waitingFor = "nothing";
  return clean;
}

/** Resolves with the exit code: 0 after a clean signal stop, 1 after a failed start or stop. */
export async function runRoles(
  steps: readonly RoleStep[],
  host: LifecycleHost,
  options: LifecycleOptions = {},
): Promise<number> {
  const stopTimeoutMs = options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
  const progress: Progress = { waitingFor: "nothing" };
  const forceExit = (why: string, code: number) => {
    host.error(`forced exit (${why}) while waiting for ${progress.waitingFor}; the stop was not clean`);
    host.exit(code);
  };
  let signalled: (signal: StopSignal) => void = () => {};
  const stopRequested = new Promise<StopSignal>((resolve) => {
    signalled = resolve;
  });
  let signals = 0;
  const handlers = SIGNALS.map((signal) => {
    const handler = () => {
      signals++;
      if (signals === 1) signalled(signal);
      else forceExit(`${signal} received again`, FORCED_EXIT_CODE);
    };
    host.onSignal(signal, handler);
    return [signal, handler] as const;
  });
  let stopTimer: ReturnType<typeof setTimeout> | undefined;
  stopRequested.then((signal) => {
    host.info(`${signal} received; stopping (send it again to exit at once)`);
    const seconds = stopTimeoutMs / 1000;
    stopTimer = setTimeout(
      () => forceExit(`stop took longer than ${seconds} s`, STOP_TIMEOUT_EXIT_CODE),
      stopTimeoutMs,
    );
  });

  const running: Role[] = [];
  try {
    for (const step of steps) {
      if (signals > 0) break;
      host.info(`starting ${step.title}`);
      progress.waitingFor = `${step.title} to start`;
      try {
        running.push(await step.start());
      } catch (err) {
        host.error(`${step.title} failed to start: ${describe(err)}`);
        await stopAll(running, host, progress);
        return 1;
      }
    }
    if (signals === 0) host.info(`running: ${running.map((r) => r.name).join(", ")}`);
    progress.waitingFor = "a signal";
    await stopRequested;
    return (await stopAll(running, host, progress)) ? 0 : 1;
  } finally {
    clearTimeout(stopTimer);
    for (const [signal, handler] of handlers) host.offSignal(signal, handler);
  }
}
