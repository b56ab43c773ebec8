/** Starts a benchmark server in a child process and waits for its `PORT <n>` line. */
import type { Subprocess } from "bun";
import { withServerAllocatorEnv } from "../../src/cli/allocator-env.ts";

export interface Child {
  port: number;
  proc: Subprocess;
  stop(): Promise<void>;
}

export async function spawnServer(
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Child> {
  const proc = Bun.spawn([process.execPath, script, ...args], {
    stdout: "pipe",
    stderr: "inherit",
    // The ceilings run with the allocator setting of the server they are compared with.
    env: withServerAllocatorEnv({ ...process.env, ...env }),
  });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!/PORT (\d+)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${script} exited before reporting its port: ${text}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const port = Number(/PORT (\d+)/.exec(text)![1]);
  return {
    port,
    proc,
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}
