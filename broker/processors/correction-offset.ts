/**
 * QUERY_CORRECTION_OFFSET (308), as Java's AdminBrokerProcessor.queryCorrectionOffset: per queue
 * of `topic`, the lowest committed offset of every group but the `filterGroups` (offsets below
 * the queue's first message do not count, ConsumerOffsetManager.queryMinOffsetInAllGroup); then,
 * for each queue `compareGroup` has an offset on, Long.MAX_VALUE where that lowest offset is past
 * the compare group's, else the lowest offset. Body: `{"correctionOffsets":{0:5,…}}`.
 *
 * Two Java quirks are not carried over: Java removes the filter groups' offsets from its table
 * while leaving them out of the minimum (through the table's key set in 4.9; 5.x also deletes
 * them explicitly), which would rewind those groups' consumers; and 4.9 looks the compare group
 * up with topic and group swapped, so it never finds it, where we compare as 5.x does. A queue of
 * the compare group with no lowest offset (filtered out, and no other group on it) is left out of
 * the answer; Java fails there with a NullPointerException.
 */
import { QueryCorrectionOffsetHeader } from "../../src/protocol/headers/admin.ts";
import { jsonBytes } from "../../src/protocol/json/index.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";

/** Java's Long.MAX_VALUE: "this queue needs no correction"; a bigint so it is written exactly. */
const LONG_MAX = 9223372036854775807n;

/** Queue id → the lowest offset of the topic's groups outside `filtered` that is still in the queue. */
function minOffsetInGroups(
  ctx: BrokerContext,
  topic: string,
  filtered: ReadonlySet<string>,
): Map<number, number> {
  const mins = new Map<number, number>();
  for (const group of ctx.offsets.groupsOf(topic)) {
    if (filtered.has(group)) continue;
    for (const [queueId, offset] of ctx.offsets.queueOffsets(group, topic)) {
      if (offset < ctx.store.getMinOffsetInQueue(topic, queueId)) continue;
      mins.set(queueId, Math.min(offset, mins.get(queueId) ?? offset));
    }
  }
  return mins;
}

export function correctionOffsetProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [
      RequestCode.QUERY_CORRECTION_OFFSET,
      (req) => {
        const h = QueryCorrectionOffsetHeader.decode(req.extFields);
        // Java splits on every comma; a blank list filters nothing.
        const filtered = new Set((h.filterGroups ?? "").trim() === "" ? [] : h.filterGroups!.split(","));
        const mins = minOffsetInGroups(ctx, h.topic, filtered);
        const correctionOffsets = new Map<number, number | bigint>(mins);
        for (const [queueId, compared] of ctx.offsets.queueOffsets(h.compareGroup, h.topic)) {
          const min = mins.get(queueId);
          if (min === undefined) continue;
          correctionOffsets.set(queueId, min > compared ? LONG_MAX : min);
        }
        // Queue order, as Java's hash map of small Integer keys iterates.
        const sorted = new Map([...correctionOffsets].sort(([a], [b]) => a - b));
        return RemotingCommand.response(
          ResponseCode.SUCCESS,
          null,
          null,
          jsonBytes({ correctionOffsets: sorted }),
        );
      },
    ],
  ];
}
