/**
 * Child process for the descriptor-exhaustion test: appends, then opens files until the process
 * has no descriptor left (EMFILE), appends across a CommitLog roll that cannot create its file,
 * frees the descriptors and appends again. Prints `ack <seq> <queueId> <queueOffset> <phy> <size>`
 * per acknowledged put, `refused <seq> <status>` per refused one, and the phases; then waits to
 * be killed. Usage: bun fd-exhaustion-child.ts <storeDir>
 */
import { closeSync, openSync } from "node:fs";
import { FileMessageStore } from "../../broker/store/file-store.ts";
import { CRASH_OPTIONS, CRASH_QUEUES, crashMessage } from "./crash-shape.ts";

const dir = process.argv[2];
if (!dir) throw new Error("usage: fd-exhaustion-child.ts <dir>");
const store = new FileMessageStore({ storePathRootDir: dir, ...CRASH_OPTIONS, syncFlushTimeout: 300 });
await store.open();
const say = (line: string) => process.stdout.write(`${line}\n`);

let seq = 0;
async function put(): Promise<string> {
  const s = seq++;
  const r = await store.putMessage(crashMessage(0, s));
  const x = r.result;
  if (r.status === "PUT_OK" && x)
    say(`ack ${s} ${s % CRASH_QUEUES} ${x.queueOffset} ${x.wroteOffset} ${x.wroteBytes}`);
  else say(`refused ${s} ${r.status}`);
  return r.status;
}

for (let i = 0; i < 20; i++) await put();
const hog: number[] = [];
try {
  for (;;) hog.push(openSync("/dev/null", "r"));
} catch (err) {
  say(`hogged ${hog.length} ${(err as NodeJS.ErrnoException).code}`);
}
// A 16 KiB CommitLog file holds a few dozen of these messages: this crosses at least one roll.
let refused = 0;
for (let i = 0; i < 400 && refused < 5; i++) if ((await put()) !== "PUT_OK") refused++;
for (const fd of hog) closeSync(fd);
say("freed");
const freedAt = Date.now();
while ((await put()) !== "PUT_OK" && Date.now() - freedAt < 10_000) await Bun.sleep(50);
say(`recovered ${Date.now() - freedAt}`);
for (let i = 0; i < 100; i++) await put();
say("done");
setInterval(() => {}, 60_000);
