/**
 * Runs started roles until a signal: starts them in order, stops them in reverse order on the first
 * SIGINT/SIGTERM, and exits at once with 130 on the second. A failed start stops what already runs.
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

export const FORCED_EXIT_CODE = 130;
const SIGNALS: readonly StopSignal[] = ["SIGINT", "SIGTERM"];

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function stopAll(running: Role[], host: LifecycleHost): Promise<boolean> {
  let clean = true;
  for (const role of running.reverse()) {
    host.info(`stopping ${role.name}`);
    try {
      await role.stop();
    } catch (err) {
      clean = false;
      host.error(`${role.name} did not stop cleanly: ${describe(err)}`);
    }
  }
  // A person watching the terminal sees the process finished on purpose, not died.
  if (clean && running.length > 0) host.info(`stopped: ${running.map((r) => r.name).join(", ")}`);
  return clean;
}

/** Resolves with the exit code: 0 after a clean signal stop, 1 after a failed start or stop. */
export async function runRoles(steps: readonly RoleStep[], host: LifecycleHost): Promise<number> {
  let signalled: (signal: StopSignal) => void = () => {};
  const stopRequested = new Promise<StopSignal>((resolve) => {
    signalled = resolve;
  });
  let signals = 0;
  const handlers = SIGNALS.map((signal) => {
    const handler = () => {
      signals++;
      if (signals === 1) signalled(signal);
      else host.exit(FORCED_EXIT_CODE);
    };
    host.onSignal(signal, handler);
    return [signal, handler] as const;
  });
  stopRequested.then((signal) => host.info(`${signal} received; stopping (send it again to exit at once)`));

  const running: Role[] = [];
  try {
    for (const step of steps) {
      if (signals > 0) break;
      host.info(`starting ${step.title}`);
      try {
        running.push(await step.start());
      } catch (err) {
        host.error(`${step.title} failed to start: ${describe(err)}`);
        await stopAll(running, host);
        return 1;
      }
    }
    if (signals === 0) host.info(`running: ${running.map((r) => r.name).join(", ")}`);
    await stopRequested;
    return (await stopAll(running, host)) ? 0 : 1;
  } finally {
    for (const [signal, handler] of handlers) host.offSignal(signal, handler);
  }
}
