/**
 * Names and formats of RocketMQ's transactional messages shared by the broker and the admin tools
 * (spec broker §10): the internal group whose offsets track the half and op queues, the op
 * record's tag, and the op body (a list of half-queue offsets).
 */

/** The internal consumer group holding the checker's progress in the half and op queues. */
export const TRANS_CHECK_GROUP = "CID_SYS_RMQ_TRANS";
/** Tag of an op ("remove") record: its half message is finished. */
export const OP_REMOVE_TAG = "d";
/** Half messages all go to queue 0 of RMQ_SYS_TRANS_HALF_TOPIC; their op records to queue 0 too. */
export const HALF_QUEUE_ID = 0;

/** The op body for these half offsets, 5.x style: each offset followed by a comma ("12,13,"). */
export function encodeOpBody(halfOffsets: readonly number[]): string {
  let s = "";
  for (const o of halfOffsets) s += `${o},`;
  return s;
}

/**
 * The half offsets an op body names: 5.x's comma-terminated list or 4.9's single number. Pieces
 * that are not non-negative integers are skipped, as Java skips what it cannot parse.
 */
export function parseOpBody(text: string): number[] {
  const out: number[] = [];
  for (const piece of text.split(",")) {
    const t = piece.trim();
    if (/^\d+$/.test(t)) out.push(Number(t));
  }
  return out;
}
