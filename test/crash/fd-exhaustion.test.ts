/**
 * Descriptor exhaustion (issue #12): a CommitLog roll that fails with EMFILE must not wedge the
 * store, and no acknowledged put may be lost. The child runs under `prlimit` so exhausting its
 * descriptors is cheap and touches nothing else.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../broker/store/helpers.ts";
import { type Ack, childLines, parseAck, verify } from "./crash-check.ts";

const NOFILE = 256;

test("a roll that fails for want of descriptors is retried once they are free, and every acknowledged put survives a kill", async () => {
  await using dir = await tempDir();
  const child = Bun.spawn(
    [
      "prlimit",
      `--nofile=${NOFILE}:${NOFILE}`,
      "--",
      process.execPath,
      join(import.meta.dir, "fd-exhaustion-child.ts"),
      dir.path,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const acks: Ack[] = [];
  const events: string[] = [];
  const refusedBeforeFree: string[] = [];
  let freed = false;
  for await (const [kind, f] of childLines(child.stdout)) {
    if (kind === "ack") acks.push(parseAck(f));
    else if (kind === "refused") {
      if (!freed) refusedBeforeFree.push(f[1]!);
    } else if (kind === "hogged" || kind === "recovered") {
      events.push(`${kind} ${kind === "hogged" ? f[1] : Number(f[0]) < 10_000}`);
    } else if (kind === "freed") {
      freed = true;
    } else if (kind === "done") {
      child.kill("SIGKILL");
    }
  }
  await child.exited;
  expect(child.signalCode ?? (await new Response(child.stderr).text())).toBe("SIGKILL");
  // Descriptors ran out, puts were refused for it, and puts were taken again after they were freed.
  expect(events).toEqual(["hogged EMFILE", "recovered true"]);
  expect(refusedBeforeFree.length).toBeGreaterThan(0);
  expect(acks.length).toBeGreaterThan(120);
  expect(await verify(dir.path, 0, acks)).toEqual([]);
});
