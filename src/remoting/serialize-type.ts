/** SerializeType: the high byte of the frame's header mark (spec remoting §1.1). */
export const SerializeType = {
  JSON: 0,
  ROCKETMQ: 1,
} as const;

export type SerializeType = (typeof SerializeType)[keyof typeof SerializeType];

export function serializeTypeName(type: SerializeType): "JSON" | "ROCKETMQ" {
  return type === SerializeType.ROCKETMQ ? "ROCKETMQ" : "JSON";
}
