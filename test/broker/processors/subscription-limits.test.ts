import { expect, test } from "bun:test";
import { SUBSCRIPTION_TAGS_MAX } from "../../../src/protocol/body/subscription.ts";
import { RequestCode, ResponseCode } from "../../../src/remoting/index.ts";
import { createTopic, pullRequest, request, startBroker } from "../../integration/harness.ts";

const overCap = () => Array.from({ length: SUBSCRIPTION_TAGS_MAX + 1 }, (_, i) => `t${i}`).join("||");
const REMARK = `parse the consumer's subscription failed: more than ${SUBSCRIPTION_TAGS_MAX} tags`;

// A pull carries its subscription in the header, which is refused whole above 256 KiB (far fewer
// tags than the cap; see test/integration/hostile-headers.test.ts); a heartbeat carries it in the body.
test("a heartbeat whose subscription names too many tags is refused with SUBSCRIPTION_PARSE_FAILED; others are served", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TTags", 1);
  const expression = overCap();
  const heartbeat = await c.invoke(
    h.addr,
    request(
      RequestCode.HEART_BEAT,
      null,
      new TextEncoder().encode(
        JSON.stringify({
          clientID: "c1",
          producerDataSet: [],
          consumerDataSet: [
            {
              groupName: "GTags",
              consumeType: "CONSUME_PASSIVELY",
              messageModel: "CLUSTERING",
              consumeFromWhere: "CONSUME_FROM_LAST_OFFSET",
              subscriptionDataSet: [{ topic: "TTags", subString: expression }],
              unitMode: false,
            },
          ],
        }),
      ),
    ),
  );
  expect({ code: heartbeat.code, remark: heartbeat.remark }).toEqual({
    code: ResponseCode.SUBSCRIPTION_PARSE_FAILED,
    remark: REMARK,
  });
  const fine = await h
    .client()
    .invoke(
      h.addr,
      pullRequest({ group: "GTags", topic: "TTags", queueId: 0, offset: 0, subscription: "a||b" }),
    );
  expect(fine.code).toBe(ResponseCode.PULL_NOT_FOUND);
});
