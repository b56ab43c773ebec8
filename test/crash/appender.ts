/**
 * Child process for the crash tests: appends to a store until killed, printing one
 * `ack <seq> <queueId> <queueOffset> <phyOffset> <size>` line per acknowledged put.
 * Usage: bun appender.ts <storeDir> <ASYNC_FLUSH|SYNC_FLUSH> <round>
 */
import { FileMessageStore } from "../../broker/store/file-store.ts";
import { CRASH_OPTIONS, crashMessage } from "./crash-shape.ts";

const [dir, flushDiskType, round] = process.argv.slice(2);
if (!dir || (flushDiskType !== "ASYNC_FLUSH" && flushDiskType !== "SYNC_FLUSH") || !round) {
  throw new Error("usage: appender.ts <dir> <flushDiskType> <round>");
}
const store = new FileMessageStore({ storePathRootDir: dir, ...CRASH_OPTIONS, flushDiskType });
await store.open();
process.stdout.write("ready\n");
const IN_FLIGHT = 8;
let seq = 0;
async function writer(): Promise<void> {
  for (;;) {
    const s = seq++;
    const r = await store.putMessage(crashMessage(Number(round), s));
    if (r.status !== "PUT_OK") throw new Error(`put failed: ${r.status}`);
    const x = r.result!;
    process.stdout.write(`ack ${s} ${s % 4} ${x.queueOffset} ${x.wroteOffset} ${x.wroteBytes}\n`);
  }
}
await Promise.all(Array.from({ length: IN_FLIGHT }, writer));
