/** Request helpers shared by the wire-level test suites: both header serializations, by name. */
import { type ExtFields, RemotingCommand, SerializeType } from "../../src/remoting/index.ts";

export const SERIALIZE_TYPES = [
  ["JSON", SerializeType.JSON],
  ["ROCKETMQ", SerializeType.ROCKETMQ],
] as const;

/** A request in the given serialization. */
export function request(
  code: number,
  ext: ExtFields | null = null,
  body: Uint8Array | null = null,
  serializeType: SerializeType = SerializeType.JSON,
): RemotingCommand {
  const req = RemotingCommand.request(code, ext, body);
  req.serializeType = serializeType;
  return req;
}
