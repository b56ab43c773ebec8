import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { StoreLockedError } from "../../../broker/store/store-lock.ts";
import { freePort, runCli, startRocketbun } from "../../support/rocketbun-child.ts";
import { abandon, openStore, readQueue } from "./file-store.helpers.ts";
import { message, tempDir } from "./helpers.ts";

describe("store lock (spec §5.4)", () => {
  test("a second store on the same directory is refused and the first keeps working", async () => {
    await using dir = await tempDir();
    const first = await openStore(dir.path);
    await first.putMessage(message("T", 0, "a"));
    const second = openStore(dir.path);
    await expect(second).rejects.toBeInstanceOf(StoreLockedError);
    await expect(second).rejects.toThrow("Lock failed, MQ already started");
    expect(await readFile(join(dir.path, "lock"), "utf8")).toBe("lock");
    await first.putMessage(message("T", 0, "b"));
    expect((await readQueue(first, "T", 0)).map(([, b]) => b)).toEqual(["a", "b"]);
    await first.shutdown();
    // Released on shutdown: the directory opens again, with both messages.
    const again = await openStore(dir.path);
    expect((await readQueue(again, "T", 0)).map(([, b]) => b)).toEqual(["a", "b"]);
    await abandon(again);
    // A crash releases it too (the kernel drops the lock of a dead process; `abandon` mimics that).
    const afterCrash = await openStore(dir.path);
    expect(afterCrash.recoveryReport?.abnormal).toBe(true);
    await afterCrash.shutdown();
  });

  test("a second broker process on the same home exits with the lock error; the first keeps serving", async () => {
    await using first = await startRocketbun();
    const ports = ["--namesrv-port", "--broker-port", "--gateway-port"].flatMap((f) => [
      f,
      String(freePort()),
    ]);
    const env = { ...process.env, ROCKETBUN_LOG_LEVEL: "warn" };
    const r = await runCli(["start", "--home", first.home, ...ports], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("Lock failed, MQ already started");
    expect(() => process.kill(first.pid, 0)).not.toThrow();
    const route = await runCli(["admin", "clusterList", "-n", first.namesrvAddr, "--json"], env);
    expect(route.code).toBe(0);
  });
});
