/** What the ACL unit suites share: RocketMQ's sample plain_acl.yml, a fake connection, signing. */
import { compileAcl } from "../../src/acl/acl-snapshot.ts";
import { parsePlainAcl } from "../../src/acl/plain-acl-file.ts";
import { createRequestSigner } from "../../src/acl/signature.ts";
import { PlainAccessValidator } from "../../src/acl/validator.ts";
import type { Connection, ExtFields, RemotingCommand } from "../../src/remoting/index.ts";
import { RemotingCommand as Command } from "../../src/remoting/index.ts";

/** distribution/conf/plain_acl.yml of RocketMQ 5.2, plus an account for the white-list cases. */
export const SAMPLE_ACL = `
globalWhiteRemoteAddresses:
  - 10.10.103.*
  - 192.168.0.*

accounts:
  - accessKey: RocketMQ
    secretKey: 12345678
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - topicA=DENY
      - topicB=PUB|SUB
      - topicC=SUB
    groupPerms:
      # the group should convert to retry topic
      - groupA=DENY
      - groupB=PUB|SUB
      - groupC=SUB

  - accessKey: rocketmq2
    secretKey: 12345678
    whiteRemoteAddress: 192.168.1.*
    # if it is admin, it could access all resources
    admin: true
`;

export function fakeConnection(remoteAddress: string): Connection {
  return {
    id: 1,
    transport: "tcp",
    remoteAddress,
    localAddress: "127.0.0.1:10911",
    closed: false,
    attributes: new Map(),
    send: () => true,
    close: () => {},
  };
}

export function validatorFor(yaml: string): PlainAccessValidator {
  const v = new PlainAccessValidator();
  v.use(compileAcl(parsePlainAcl(yaml)));
  return v;
}

export function signed(
  code: number,
  ext: ExtFields | null,
  body: Uint8Array | null = null,
  accessKey = "RocketMQ",
  secretKey = "12345678",
): RemotingCommand {
  const request = Command.request(code, ext, body);
  createRequestSigner({ accessKey, secretKey })(request);
  return request;
}

/** The remark a check refuses with, or "allowed". */
export function outcome(v: PlainAccessValidator, request: RemotingCommand, addr = "127.0.0.1:40000"): string {
  try {
    v.check(request, fakeConnection(addr));
    return "allowed";
  } catch (err) {
    return (err as { remark?: string }).remark ?? String(err);
  }
}
