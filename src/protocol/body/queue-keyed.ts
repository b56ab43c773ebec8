/**
 * Admin bodies keyed by MessageQueue (TopicStatsTable, ConsumeStats, ResetOffsetBody). Java maps them
 * as HashMap<MessageQueue, V>, which fastjson writes with the queue object itself as the key:
 * `{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{...}}}`. Java clients parse exactly
 * that, so we write it; it is not standard JSON.
 */
export interface MessageQueueKey {
  topic: string;
  brokerName: string;
  queueId: number;
}

function mqText(mq: MessageQueueKey): string {
  return `{"brokerName":${JSON.stringify(mq.brokerName)},"queueId":${mq.queueId},"topic":${JSON.stringify(mq.topic)}}`;
}

/** `{"offsetTable":{<mq>:<value>,...}, ...extra}` with fastjson's object keys. */
export function encodeQueueKeyedTable(
  rows: ReadonlyArray<readonly [MessageQueueKey, unknown]>,
  extra: Record<string, unknown> = {},
): Uint8Array {
  const table = rows.map(([mq, v]) => `${mqText(mq)}:${JSON.stringify(v)}`).join(",");
  const rest = Object.entries(extra)
    .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)},`)
    .join("");
  return new TextEncoder().encode(`{${rest}"offsetTable":{${table}}}`);
}
