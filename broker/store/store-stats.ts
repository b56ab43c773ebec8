/** Counters behind GET_BROKER_RUNTIME_INFO's store keys (spec §12). */
import type { CommitLog } from "./commitlog.ts";
import type { StoreRuntimeStats } from "./message-store.ts";

export class StoreStats {
  puts = 0;
  putBytes = 0;
  putFailed = 0;
  getsFound = 0;
  transferred = 0;
  boot = 0;

  snapshot(cl: CommitLog, flushedOffset: number): StoreRuntimeStats {
    return {
      putMessageTimesTotal: this.puts,
      putMessageSizeTotal: this.putBytes,
      putMessageFailedTimes: this.putFailed,
      getMessageTimesTotalFound: this.getsFound,
      getMessageTransferredMsgCount: this.transferred,
      commitLogMinOffset: cl.minOffset,
      commitLogMaxOffset: cl.maxOffset,
      dispatchBehindBytes: cl.maxOffset - cl.dispatchedOffset,
      remainHowManyDataToFlush: cl.maxOffset - flushedOffset,
      bootTimestamp: this.boot,
    };
  }
}
