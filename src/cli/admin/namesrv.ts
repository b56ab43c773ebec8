/**
 * NameServer verbs (mqadmin's namesrv commands): updateKvConfig, deleteKvConfig, wipeWritePerm,
 * addWritePerm, updateNamesrvConfig, getNamesrvConfig. Each goes to every NameServer of `-n`, as
 * mqadmin does. A NameServer with aclEnable=true takes the changes from admin accounts only:
 * pass `--ak`/`--sk`.
 */
import {
  type Admin,
  addWritePerm,
  deleteKvConfig,
  namesrvAddrs,
  namesrvConfig,
  putKvConfig,
  updateNamesrvConfig,
  wipeWritePerm,
} from "../../client/index.ts";
import { AdminFailure, type AdminVerb, required } from "./context.ts";

const NAMESPACE = { long: "namespace", short: "s", value: "NAMESPACE", help: "the KV namespace" } as const;
const KEY = { long: "key", short: "k", value: "KEY", help: "the key" } as const;
const BROKER_NAME = { long: "brokerName", short: "b", value: "NAME", help: "broker name" } as const;
/** mqadmin's `%-50s=  %s` config lines. */
const CONFIG_KEY_WIDTH = 50;

const updateKvConfig: AdminVerb = {
  name: "updateKvConfig",
  summary: "Create or update a KV config entry on every NameServer.",
  usage: "-s NAMESPACE -k KEY -v VALUE",
  flags: [NAMESPACE, KEY, { long: "value", short: "v", value: "VALUE", help: "the value" }],
  async run(ctx) {
    const namespace = required(ctx, "namespace");
    const key = required(ctx, "key");
    const value = required(ctx, "value");
    await putKvConfig(await ctx.admin(), namespace, key, value);
    ctx.print({ namespace, key, value }, () => "create or update kv config to namespace success.");
  },
};

const deleteKvConfigVerb: AdminVerb = {
  name: "deleteKvConfig",
  summary: "Delete a KV config entry from every NameServer.",
  usage: "-s NAMESPACE -k KEY",
  flags: [NAMESPACE, KEY],
  async run(ctx) {
    const namespace = required(ctx, "namespace");
    const key = required(ctx, "key");
    await deleteKvConfig(await ctx.admin(), namespace, key);
    ctx.print({ namespace, key }, () => "delete kv config from namespace success.");
  },
};

type PermChange = (admin: Admin, namesrvAddr: string, brokerName: string) => Promise<number>;

/** Asks each NameServer in turn, reports each, and fails (exit 1) when any refused. */
function writePermVerb(name: string, word: "wipe" | "add", change: PermChange): AdminVerb {
  return {
    name,
    summary: `${word === "wipe" ? "Wipe" : "Add"} a broker's write permission in every NameServer of -n.`,
    usage: "-b BROKER_NAME",
    flags: [BROKER_NAME],
    async run(ctx) {
      const brokerName = required(ctx, "brokerName");
      const admin = await ctx.admin();
      const results: { namesrvAddr: string; topics?: number; error?: string }[] = [];
      for (const namesrvAddr of namesrvAddrs(admin)) {
        try {
          results.push({ namesrvAddr, topics: await change(admin, namesrvAddr, brokerName) });
        } catch (err) {
          results.push({ namesrvAddr, error: (err as Error).message });
        }
      }
      ctx.print({ brokerName, results }, () =>
        results
          .map((r) =>
            r.error === undefined
              ? `${word} write perm of broker[${brokerName}] in name server[${r.namesrvAddr}] OK, ${r.topics}`
              : `${word} write perm of broker[${brokerName}] in name server[${r.namesrvAddr}] Failed`,
          )
          .join("\n"),
      );
      const failed = results.filter((r) => r.error !== undefined);
      if (failed.length > 0)
        throw new AdminFailure(failed.map((r) => `${r.namesrvAddr}: ${r.error}`).join("; "));
    },
  };
}

const updateNamesrvConfigVerb: AdminVerb = {
  name: "updateNamesrvConfig",
  summary: "Change a NameServer config key at run time, on every NameServer of -n.",
  usage: "-k KEY -v VALUE",
  flags: [
    { long: "key", short: "k", value: "KEY", help: "config key" },
    { long: "value", short: "v", value: "VALUE", help: "config value" },
  ],
  async run(ctx) {
    const key = required(ctx, "key");
    const value = required(ctx, "value");
    const admin = await ctx.admin();
    await updateNamesrvConfig(admin, new Map([[key, value]]));
    const addrs = namesrvAddrs(admin);
    ctx.print(
      { namesrvAddrs: addrs, key, value },
      () => `update name server config success![${addrs.join(", ")}]\n${key} : ${value}`,
    );
  },
};

const getNamesrvConfig: AdminVerb = {
  name: "getNamesrvConfig",
  summary: "Print the configuration of every NameServer of -n.",
  usage: "",
  flags: [],
  async run(ctx) {
    const configs = await namesrvConfig(await ctx.admin());
    const plain = Object.fromEntries([...configs].map(([addr, kv]) => [addr, Object.fromEntries(kv)]));
    ctx.print(plain, () =>
      [...configs]
        .flatMap(([addr, kv]) => [
          `============${addr}============`,
          ...[...kv].map(([k, v]) => `${k.padEnd(CONFIG_KEY_WIDTH)}=  ${v}`),
        ])
        .join("\n"),
    );
  },
};

export const namesrvVerbs: readonly AdminVerb[] = [
  updateKvConfig,
  deleteKvConfigVerb,
  writePermVerb("wipeWritePerm", "wipe", wipeWritePerm),
  writePermVerb("addWritePerm", "add", addWritePerm),
  updateNamesrvConfigVerb,
  getNamesrvConfig,
];
