import { describe, expect, test } from "bun:test";
import {
  FORCED_EXIT_CODE,
  type LifecycleHost,
  type RoleStep,
  runRoles,
  STOP_TIMEOUT_EXIT_CODE,
  type StopSignal,
} from "../../src/cli/lifecycle.ts";
import type { Role } from "../../src/cli/roles.ts";

/** A stand-in for `process`: records a transcript and lets the test raise signals. */
class FakeHost implements LifecycleHost {
  readonly transcript: string[] = [];
  readonly handlers = new Map<StopSignal, Set<() => void>>();
  private waiters: Array<{ text: string; resolve: () => void }> = [];

  onSignal(signal: StopSignal, handler: () => void): void {
    const set = this.handlers.get(signal) ?? new Set();
    set.add(handler);
    this.handlers.set(signal, set);
  }
  offSignal(signal: StopSignal, handler: () => void): void {
    this.handlers.get(signal)?.delete(handler);
  }
  exit(code: number): void {
    this.record(`exit ${code}`);
  }
  info(message: string): void {
    this.record(message);
  }
  error(message: string): void {
    this.record(`error: ${message}`);
  }
  raise(signal: StopSignal): void {
    for (const h of this.handlers.get(signal) ?? []) h();
  }
  listenerCount(): number {
    return [...this.handlers.values()].reduce((n, s) => n + s.size, 0);
  }
  record(line: string): void {
    this.transcript.push(line);
    for (const w of this.waiters.filter((w) => line.startsWith(w.text))) w.resolve();
    this.waiters = this.waiters.filter((w) => !line.startsWith(w.text));
  }
  /** Resolves when a transcript line starting with `text` is (or was) recorded. */
  until(text: string): Promise<void> {
    if (this.transcript.some((l) => l.startsWith(text))) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ text, resolve }));
  }
}

function fakeRole(name: string, host: FakeHost, stop: () => Promise<void> = async () => {}): RoleStep {
  return {
    title: name,
    start: async (): Promise<Role> => {
      host.record(`started ${name}`);
      return {
        name,
        stop: async () => {
          await stop();
          host.record(`stopped ${name}`);
        },
      };
    },
  };
}

describe("runRoles", () => {
  test("starts roles in order and stops them in reverse order on SIGINT", async () => {
    const host = new FakeHost();
    const steps = ["NameServer", "Broker", "Gateway"].map((n) => fakeRole(n, host));
    const done = runRoles(steps, host);
    await host.until("running");
    host.raise("SIGINT");
    expect(await done).toEqual(0);
    expect(host.transcript).toEqual([
      "starting NameServer",
      "started NameServer",
      "starting Broker",
      "started Broker",
      "starting Gateway",
      "started Gateway",
      "running: NameServer, Broker, Gateway",
      "SIGINT received; stopping (send it again to exit at once)",
      "stopping Gateway",
      "stopped Gateway",
      "stopping Broker",
      "stopped Broker",
      "stopping NameServer",
      "stopped NameServer",
      "stopped: Gateway, Broker, NameServer",
    ]);
    expect(host.listenerCount()).toEqual(0);
  });

  test("a second signal while stopping forces exit 130", async () => {
    const host = new FakeHost();
    let release: () => void = () => {};
    const hung = new Promise<void>((resolve) => {
      release = resolve;
    });
    const done = runRoles([fakeRole("Broker", host, () => hung)], host);
    await host.until("running");
    host.raise("SIGTERM");
    await host.until("stopping Broker");
    host.raise("SIGINT");
    expect(host.transcript.slice(-2)).toEqual([
      "error: forced exit (SIGINT received again) while waiting for Broker to stop; the stop was not clean",
      `exit ${FORCED_EXIT_CODE}`,
    ]);
    release();
    expect(await done).toEqual(0);
  });

  test("a stop that overruns its timeout logs what it waited for, then exits 1", async () => {
    const host = new FakeHost();
    let release: () => void = () => {};
    const hung = new Promise<void>((resolve) => {
      release = resolve;
    });
    const steps = [fakeRole("NameServer", host), fakeRole("Broker", host, () => hung)];
    const done = runRoles(steps, host, { stopTimeoutMs: 20 });
    await host.until("running");
    host.raise("SIGTERM");
    await host.until(`exit ${STOP_TIMEOUT_EXIT_CODE}`);
    expect(host.transcript.slice(-3)).toEqual([
      "stopping Broker",
      "error: forced exit (stop took longer than 0.02 s) while waiting for Broker to stop; the stop was not clean",
      `exit ${STOP_TIMEOUT_EXIT_CODE}`,
    ]);
    release();
    expect(await done).toEqual(0);
  });

  test("a stop within its timeout forces nothing", async () => {
    const host = new FakeHost();
    const slow = fakeRole("Broker", host, () => Bun.sleep(5));
    const done = runRoles([slow], host, { stopTimeoutMs: 200 });
    await host.until("running");
    host.raise("SIGTERM");
    expect(await done).toEqual(0);
    await Bun.sleep(250);
    expect(host.transcript.filter((l) => l.startsWith("error") || l.startsWith("exit"))).toEqual([]);
  });

  test("a failed start stops the roles already running, in reverse, and later roles never start", async () => {
    const host = new FakeHost();
    const failing: RoleStep = {
      title: "Broker",
      start: async () => {
        throw new Error("port 10911 in use");
      },
    };
    const code = await runRoles([fakeRole("NameServer", host), failing, fakeRole("Gateway", host)], host);
    expect(code).toEqual(1);
    expect(host.transcript).toEqual([
      "starting NameServer",
      "started NameServer",
      "starting Broker",
      "error: Broker failed to start: port 10911 in use",
      "stopping NameServer",
      "stopped NameServer",
      "stopped: NameServer",
    ]);
    expect(host.listenerCount()).toEqual(0);
  });

  test("a role that fails to stop is reported and the others still stop", async () => {
    const host = new FakeHost();
    const bad = fakeRole("Broker", host, async () => {
      throw new Error("flush failed");
    });
    const done = runRoles([fakeRole("NameServer", host), bad], host);
    await host.until("running");
    host.raise("SIGTERM");
    expect(await done).toEqual(1);
    expect(host.transcript.slice(-4)).toEqual([
      "stopping Broker",
      "error: Broker did not stop cleanly: flush failed",
      "stopping NameServer",
      "stopped NameServer",
    ]);
  });

  test("a signal during startup stops what started and starts nothing more", async () => {
    const host = new FakeHost();
    const raising: RoleStep = {
      title: "NameServer",
      start: async () => {
        host.raise("SIGINT");
        return { name: "NameServer", stop: async () => host.record("stopped NameServer") };
      },
    };
    expect(await runRoles([raising, fakeRole("Broker", host)], host)).toEqual(0);
    expect(host.transcript).toEqual([
      "starting NameServer",
      "SIGINT received; stopping (send it again to exit at once)",
      "stopping NameServer",
      "stopped NameServer",
      "stopped: NameServer",
    ]);
  });
});
