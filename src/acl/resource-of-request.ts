/**
 * What a request touches and the permission it needs there (Java's PlainAccessResource.parse, 5.x):
 * topics by name, consumer groups as their retry topic `%RETRY%<group>`. Codes not listed touch
 * nothing, so a valid signature is all they need, as in Java. SEND_REPLY_MESSAGE (324/325) is left
 * out on purpose: neither Java's ACL 1.0 table nor 2.0's annotations name its topic, so a signed
 * reply needs no PUB on `<cluster>_REPLY_TOPIC`, and Java repliers configured for that keep working.
 */
import { parseHeartbeat } from "../protocol/body/heartbeat.ts";
import {
  GetConsumerListByGroupRequestHeader,
  UnregisterClientRequestHeader,
} from "../protocol/headers/client.ts";
import { UpdateConsumerOffsetRequestHeader } from "../protocol/headers/offsets.ts";
import type { RemotingCommand } from "../remoting/command.ts";
import { RemotingError } from "../remoting/errors.ts";
import { RequestCode } from "../remoting/request-code.ts";
import { AclDenied } from "./errors.ts";
import { isRetryTopic, Permission, retryTopicOf } from "./permission.ts";

/** Resource → needed permission, in the order the request names them (Java iterates a HashMap). */
export type NeededPerms = Map<string, number>;

function add(into: NeededPerms, resource: string | null | undefined, perm: number): void {
  if (resource !== null && resource !== undefined) into.set(resource, perm);
}

function group(name: string | null | undefined): string | null {
  return name === null || name === undefined ? null : retryTopicOf(name);
}

/**
 * A send names its topic; a send to a retry topic is a consumer sending back, checked against the
 * group (SEND_MESSAGE's `group` field, which Java reads though the header has none: null, no check).
 */
function addSend(into: NeededPerms, topic: string | undefined, groupName: string | undefined): void {
  if (topic !== undefined && isRetryTopic(topic)) add(into, group(groupName), Permission.SUB);
  else add(into, topic, Permission.PUB);
}

function addHeartbeat(into: NeededPerms, request: RemotingCommand): void {
  for (const consumer of parseHeartbeat(request.body).consumerDataSet) {
    add(into, group(consumer.groupName), Permission.SUB);
    for (const sub of consumer.subscriptionDataSet) add(into, sub.topic, Permission.SUB);
  }
}

/** The resources of `request`; a request that cannot be read is refused with the reason (AclException). */
export function neededPerms(request: RemotingCommand): NeededPerms {
  const out: NeededPerms = new Map();
  const ext = request.extFields;
  if (!ext) return out;
  try {
    switch (request.code) {
      case RequestCode.SEND_MESSAGE:
        addSend(out, ext.topic, ext.group);
        break;
      case RequestCode.SEND_MESSAGE_V2:
      case RequestCode.SEND_BATCH_MESSAGE:
        addSend(out, ext.b, ext.a);
        break;
      case RequestCode.CONSUMER_SEND_MSG_BACK:
        add(out, group(ext.group), Permission.SUB);
        break;
      case RequestCode.PULL_MESSAGE:
        add(out, ext.topic, Permission.SUB);
        add(out, group(ext.consumerGroup), Permission.SUB);
        break;
      case RequestCode.QUERY_MESSAGE:
        add(out, ext.topic, Permission.SUB);
        break;
      case RequestCode.HEART_BEAT:
        addHeartbeat(out, request);
        break;
      case RequestCode.UNREGISTER_CLIENT:
        add(out, group(UnregisterClientRequestHeader.decode(ext).consumerGroup), Permission.SUB);
        break;
      case RequestCode.GET_CONSUMER_LIST_BY_GROUP:
        add(out, group(GetConsumerListByGroupRequestHeader.decode(ext).consumerGroup), Permission.SUB);
        break;
      case RequestCode.UPDATE_CONSUMER_OFFSET: {
        const h = UpdateConsumerOffsetRequestHeader.decode(ext);
        add(out, group(h.consumerGroup), Permission.SUB);
        add(out, h.topic, Permission.SUB);
        break;
      }
    }
  } catch (err) {
    if (err instanceof RemotingError) throw new AclDenied(err.remark);
    throw err;
  }
  return out;
}
