import { describe, expect, test } from "bun:test";
import { failureText } from "../../../src/cli/admin/failure-text.ts";
import { MQClientError } from "../../../src/client/index.ts";
import { ResponseCode } from "../../../src/remoting/index.ts";

const connectFailed = (addr: string) =>
  new MQClientError({
    code: ResponseCode.RPC_SEND_TO_CHANNEL_FAILED,
    remark: `connect to ${addr} failed`,
    addr,
    requestCode: 105,
  });

describe("failure text", () => {
  test("a transport failure towards a NameServer of -n names the NameServer, even wrapped", () => {
    const wrapped = new MQClientError({
      code: ResponseCode.TOPIC_NOT_EXIST,
      remark: "No route info of this topic: T",
      cause: connectFailed("127.0.0.1:1"),
    });
    expect(failureText(wrapped, ["127.0.0.1:1"])).toBe(
      "the NameServer 127.0.0.1:1 is unreachable (RPC_SEND_TO_CHANNEL_FAILED: connect to 127.0.0.1:1 failed [GET_ROUTEINFO_BY_TOPIC to 127.0.0.1:1])",
    );
  });

  test("a broker that cannot be reached, or an answer, keeps its own message", () => {
    expect(failureText(connectFailed("127.0.0.1:10911"), ["127.0.0.1:9876"])).toStartWith(
      "RPC_SEND_TO_CHANNEL_FAILED: connect to 127.0.0.1:10911 failed",
    );
    const notExist = new MQClientError({
      code: ResponseCode.TOPIC_NOT_EXIST,
      remark: "No route info of this topic: T",
    });
    expect(failureText(notExist, ["127.0.0.1:9876"])).toBe("TOPIC_NOT_EXIST: No route info of this topic: T");
    expect(failureText("plain", [])).toBe("plain");
  });
});
