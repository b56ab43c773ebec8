import { describe, expect, test } from "bun:test";
// ali-ons is CommonJS; its own encoder/decoder are the reference for what a Node client writes and reads.
import AliRemotingCommand from "ali-ons/lib/protocol/command/remoting_command.js";
import {
  decodeFrame,
  encodeFrame,
  FrameDecoder,
  RemotingCommand,
  SerializeType,
} from "../../src/remoting/index.ts";

describe("frames exactly as ali-ons writes them", () => {
  test("a request with numeric and boolean header values decodes to string extFields", () => {
    const ali = AliRemotingCommand.createRequestCommand(11, {
      consumerGroup: "G",
      topic: "T",
      queueId: 0,
      queueOffset: 42,
      maxMsgNums: 32,
      sysFlag: 2,
      commitOffset: 0,
      suspendTimeoutMillis: 15000,
      subscription: "*",
      subVersion: 1700000000000,
      unitMode: false,
    });
    ali.body = Buffer.from("payload");
    const bytes: Buffer = ali.encode();
    const [frame] = new FrameDecoder().push(bytes);
    const cmd = decodeFrame(frame!);
    expect(cmd).toEqual(
      new RemotingCommand({
        code: 11,
        language: "JAVA",
        version: 121,
        opaque: ali.opaque,
        flag: 0,
        extFields: {
          consumerGroup: "G",
          topic: "T",
          queueId: "0",
          queueOffset: "42",
          maxMsgNums: "32",
          sysFlag: "2",
          commitOffset: "0",
          suspendTimeoutMillis: "15000",
          subscription: "*",
          subVersion: "1700000000000",
          unitMode: "false",
        },
        body: new Uint8Array(Buffer.from("payload")),
        serializeType: SerializeType.JSON,
      }),
    );
  });

  test("a oneway request keeps its oneway flag", () => {
    const ali = AliRemotingCommand.createRequestCommand(15, {
      consumerGroup: "G",
      topic: "T",
      queueId: 1,
      commitOffset: 5,
    });
    ali.markOnewayRPC();
    const cmd = decodeFrame(new FrameDecoder().push(ali.encode())[0]!);
    expect(cmd.isOneway).toBe(true);
    expect(cmd.isResponse).toBe(false);
  });

  test("ali-ons decodes our JSON response, extFields and body intact", () => {
    const response = RemotingCommand.response(
      0,
      null,
      { msgId: "ABC", queueId: "3", queueOffset: "7" },
      Buffer.from("xyz"),
    );
    response.opaque = 99;
    // ali-ons decodes the whole frame, length prefix included (it reads the header length at offset 4).
    const ali = AliRemotingCommand.decode(Buffer.from(encodeFrame(response)));
    expect({
      code: ali.code,
      opaque: ali.opaque,
      isResponse: ali.isResponseType,
      ext: ali.extFields,
      body: ali.body.toString(),
    }).toEqual({
      code: 0,
      opaque: 99,
      isResponse: true,
      ext: { msgId: "ABC", queueId: "3", queueOffset: "7" },
      body: "xyz",
    });
  });
});
