/** Requests the benchmarks set up with before measuring, over the raw remoting client. */
import { type RemotingClient, RemotingCommand, RequestCode } from "../../src/remoting/index.ts";

/** The response, or an error naming the code and remark when it is not SUCCESS. */
export async function ok(p: Promise<RemotingCommand>): Promise<RemotingCommand> {
  const r = await p;
  if (r.code !== 0) throw new Error(`broker answered ${r.code} ${r.remark}`);
  return r;
}

/** Creates `topic` on the broker at `addr` with `queues` read and write queues. */
export async function createTopic(
  c: RemotingClient,
  addr: string,
  topic: string,
  queues: number,
): Promise<void> {
  await ok(
    c.invoke(
      addr,
      RemotingCommand.request(RequestCode.UPDATE_AND_CREATE_TOPIC, {
        topic,
        readQueueNums: String(queues),
        writeQueueNums: String(queues),
        perm: "6",
        topicFilterType: "SINGLE_TAG",
      }),
    ),
  );
}
