import { FileMessageStore } from "../../../broker/store/file-store.ts";
import { MemoryMessageStore } from "../../../broker/store/memory-store.ts";
import { tempDir } from "./helpers.ts";
import { runSuite } from "./store.case.ts";

runSuite("memory", async (now) => {
  const store = new MemoryMessageStore({}, now);
  await store.open();
  return { store, [Symbol.asyncDispose]: () => store.shutdown() };
});

for (const flushDiskType of ["ASYNC_FLUSH", "SYNC_FLUSH"] as const) {
  runSuite(`file ${flushDiskType}`, async (now) => {
    const dir = await tempDir();
    const store = new FileMessageStore(
      {
        storePathRootDir: dir.path,
        flushDiskType,
        mappedFileSizeCommitLog: 64 * 1024,
        mappedFileSizeConsumeQueue: 100 * 20,
        maxHashSlotNum: 64,
        maxIndexNum: 256,
      },
      { now },
    );
    await store.open();
    return {
      store,
      async [Symbol.asyncDispose]() {
        await store.shutdown();
        await dir[Symbol.asyncDispose]();
      },
    };
  });
}
