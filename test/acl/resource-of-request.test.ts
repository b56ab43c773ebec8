/**
 * What a send-like request needs under ACL: a send names its topic (PUB), a reply of request-reply
 * names nothing, as in Java's ACL 1.0 table and 2.0 annotations (a signature is enough).
 */
import { expect, test } from "bun:test";
import { Permission } from "../../src/acl/permission.ts";
import { neededPerms } from "../../src/acl/resource-of-request.ts";
import { SendMessageRequestHeader, SendMessageRequestHeaderV2 } from "../../src/protocol/headers/send.ts";
import { RemotingCommand, RequestCode } from "../../src/remoting/index.ts";

const header = {
  producerGroup: "PG",
  topic: "C_REPLY_TOPIC",
  defaultTopic: "TBW102",
  defaultTopicQueueNums: 4,
  queueId: 0,
  sysFlag: 0,
  bornTimestamp: 1,
  flag: 0,
};

test("SEND_MESSAGE_V2 needs PUB on its topic; SEND_REPLY_MESSAGE (324) and _V2 (325) need no resource", () => {
  const v2 = SendMessageRequestHeaderV2.encode(header);
  const v1 = SendMessageRequestHeader.encode(header);
  const perms = (code: number, ext: Record<string, string>) => [
    ...neededPerms(RemotingCommand.request(code, ext)).entries(),
  ];
  expect({
    send: perms(RequestCode.SEND_MESSAGE_V2, v2),
    reply: perms(RequestCode.SEND_REPLY_MESSAGE, v1),
    replyV2: perms(RequestCode.SEND_REPLY_MESSAGE_V2, v2),
  }).toEqual({ send: [["C_REPLY_TOPIC", Permission.PUB]], reply: [], replyV2: [] });
});
