/**
 * ACL 1.0 signatures against vectors worked out by hand from AclClientRPCHook's definition (values
 * in key order, Signature left out, body appended, HmacSHA1, Base64; the HMACs computed with
 * `openssl dgst -sha1 -hmac KEY -binary | base64`, or by test/fixtures/acl/JavaSign.java, which does
 * what the Java client's AclClientRPCHook does with the JDK's TreeMap and Mac), and against ali-ons'
 * own signing code path.
 */
import { describe, expect, test } from "bun:test";
import { createRequire } from "node:module";
import {
  computeSignature,
  createRequestSigner,
  hmacKey,
  SignedKeys,
  signedKeysOf,
} from "../../src/acl/signature.ts";
import { decodeFrame, FRAME_LENGTH_BYTES, RemotingCommand } from "../../src/remoting/index.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);
const require = createRequire(import.meta.url);

describe("signature vectors", () => {
  test("values join in key order before the body: RocketMQ + TopicA + body", () => {
    // printf 'RocketMQTopicAbody' | openssl dgst -sha1 -hmac 12345678 -binary | base64
    const ext = { topic: "TopicA", AccessKey: "RocketMQ" };
    expect(computeSignature("12345678", ext, utf8("body"))).toBe("SEoOvZ0BgWohxzLrhbRjWD5epRM=");
  });

  test("no body: the values alone", () => {
    expect(computeSignature("12345678", { AccessKey: "RocketMQ" }, null)).toBe(
      "IUc8rrO/0gDch8CjObLQsW2rsiA=",
    );
    expect(computeSignature("12345678", { AccessKey: "RocketMQ" }, new Uint8Array())).toBe(
      "IUc8rrO/0gDch8CjObLQsW2rsiA=",
    );
  });

  test("keys sort by UTF-16 code unit (upper case, then _, then lower case), Signature is left out, text is UTF-8", () => {
    // content 'Acc_key' 'y' 'PG_A' 'TopicZ' '0' 'hello ✓', key 'sëcret-1'
    const ext = { b: "TopicZ", a: "PG_A", AccessKey: "Acc_key", _x: "y", e: "0", Signature: "stale" };
    const expected = "BumcFy96CyQ0bPzndcEEFZIU3K4=";
    expect(computeSignature("sëcret-1", ext, utf8("hello ✓"))).toBe(expected);
    expect(computeSignature(hmacKey("sëcret-1"), ext, utf8("hello ✓"))).toBe(expected);
  });

  test("non-ASCII keys sort as Java's TreeMap sorts them (computed by test/fixtures/acl/JavaSign.java)", () => {
    const ext = {
      Ω: "omega",
      z: "zed",
      A: "✓",
      é: "e-acute",
      "😀": "grin😀",
      _: "under",
      AccessKey: "RocketMQ",
      Signature: "ignored",
    };
    const body = new Uint8Array([0xff, 0x00, 0x41]);
    expect(computeSignature("sëcret😀", ext, body)).toBe("FBkb4SnBZ3VVRtTAz4QebKHIIW0=");
  });

  test("_UNIQUE_KEY_QUERY is signed by senders after V4_9_3 only", () => {
    const ext = { AccessKey: "RocketMQ", _UNIQUE_KEY_QUERY: "true" };
    const withFlag = computeSignature("12345678", ext, null, 401);
    expect(computeSignature("12345678", ext, null, 399)).toBe("IUc8rrO/0gDch8CjObLQsW2rsiA=");
    expect(withFlag).not.toBe("IUc8rrO/0gDch8CjObLQsW2rsiA=");
  });

  test("the signed-key cache answers each shape and sender version as a fresh sort would", () => {
    const cache = new SignedKeys();
    const shapes: Record<string, string>[] = [
      { b: "1", a: "2" },
      { a: "1", b: "2" },
      { b: "1", a: "2", c: "3" },
      { b: "x", a: "y" },
      { b: "1", Signature: "s", _UNIQUE_KEY_QUERY: "true", AccessKey: "ak" },
      {},
    ];
    for (const ext of [...shapes, ...shapes]) {
      for (const version of [399, 401]) expect(cache.of(ext, version)).toEqual(signedKeysOf(ext, version));
    }
    expect(signedKeysOf(shapes[4]!, 401)).toEqual(["AccessKey", "_UNIQUE_KEY_QUERY", "b"]);
    expect(signedKeysOf(shapes[4]!, 399)).toEqual(["AccessKey", "b"]);
  });
});

describe("the client signer", () => {
  test("adds AccessKey and SecurityToken, signs them, and leaves the caller's fields alone", () => {
    const shared = { topic: "TopicA" };
    const request = RemotingCommand.request(10, shared, utf8("body"));
    createRequestSigner({ accessKey: "RocketMQ", secretKey: "12345678" })(request);
    expect(shared).toEqual({ topic: "TopicA" });
    expect(request.extFields).toEqual({
      topic: "TopicA",
      AccessKey: "RocketMQ",
      Signature: "SEoOvZ0BgWohxzLrhbRjWD5epRM=",
    });
    const withToken = RemotingCommand.request(10, { topic: "TopicA" }, utf8("body"));
    createRequestSigner({ accessKey: "RocketMQ", secretKey: "12345678", securityToken: "tok" })(withToken);
    const { Signature, ...rest } = withToken.extFields!;
    expect(Signature).toBe(computeSignature("12345678", rest, utf8("body")));
    expect(rest.SecurityToken).toBe("tok");
  });

  test("a request signed twice carries one Signature, over its current fields", () => {
    const sign = createRequestSigner({ accessKey: "RocketMQ", secretKey: "12345678" });
    const request = RemotingCommand.request(10, { topic: "TopicA" }, utf8("body"));
    sign(request);
    sign(request);
    expect(request.extFields?.Signature).toBe("SEoOvZ0BgWohxzLrhbRjWD5epRM=");
  });
});

describe("ali-ons", () => {
  // ali-ons' Channel.beforeRequest, called on its own RemotingCommand without opening a socket.
  const AliCommand = require("ali-ons/lib/protocol/command/remoting_command.js");
  const AliChannel = require("ali-ons/lib/channel.js");

  function aliSigned(customHeader: Record<string, unknown>, body: Uint8Array | null, secretKey: string) {
    const command = new AliCommand({ code: 310, customHeader });
    command.body = body ? Buffer.from(body) : null;
    const self = { accessKey: "AK_ALIONS", secretKey, onsChannel: "ALIYUN" };
    AliChannel.prototype.beforeRequest.call(self, command);
    // Through our decoder: numbers and booleans become text as they do for the broker.
    const frame: Buffer = command.encode();
    return decodeFrame(new Uint8Array(frame).subarray(FRAME_LENGTH_BYTES));
  }

  test("signs AccessKey and OnsChannel with the header and body, as the hook's definition says", () => {
    // content 'AK_ALIONS' 'ALIYUN' then the body bytes 00 01 02
    const got = aliSigned({}, new Uint8Array([0, 1, 2]), "secret-ali");
    expect(got.extFields).toEqual({
      AccessKey: "AK_ALIONS",
      OnsChannel: "ALIYUN",
      Signature: "qlDJ1C+rVxOKp+EreVvKVH376rM=",
    });
  });

  test("a send header with numbers and booleans verifies once decoded to text", () => {
    const header = {
      a: "PG",
      b: "TopicA",
      c: "TBW102",
      d: 4,
      e: 0,
      f: 0,
      g: 1700000000123,
      h: 0,
      i: "TAGS\u0001TagA\u0002",
      j: 0,
      k: false,
      m: false,
      skipped: null,
    };
    const got = aliSigned(header, utf8("héllo"), "secret-ali");
    const { Signature, ...rest } = got.extFields!;
    expect(rest.g).toBe("1700000000123");
    expect(rest.k).toBe("false");
    expect(computeSignature("secret-ali", rest, got.body)).toBe(Signature!);
  });
});
