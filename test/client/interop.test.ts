import { describe, test } from "bun:test";
import { startCluster } from "./harness.ts";
import { aliOnsToNative, nativeToAliOns } from "./scenarios.case.ts";

describe("ali-ons interop (fake broker)", () => {
  test("messages ali-ons produces reach our consumer with identical body, tags, keys, properties and id", async () => {
    await using cluster = await startCluster([{ topics: ["AliT"] }]);
    await aliOnsToNative(cluster.namesrvAddr, "AliT");
  });

  test("messages we produce reach an ali-ons consumer with identical body, tags, keys, properties and ids", async () => {
    await using cluster = await startCluster([{ topics: ["NatT"] }]);
    await nativeToAliOns(cluster.namesrvAddr, "NatT");
  });
});
