/**
 * bench/client: what the native client adds on top of the remoting layer. A child process runs a
 * NameServer and a minimal broker (SEND_MESSAGE_V2 answered at once; PULL_MESSAGE answered with
 * 32 real stored records); the parent measures producer sends/s (1 and 64 in flight, 256-byte
 * bodies) beside a remoting echo of the same size, and messages/s a pull + decode delivers.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { BrokerApi } from "../src/client/broker-api.ts";
import { createProducer } from "../src/client/index.ts";
import { decodeMessages } from "../src/client/message.ts";
import { prepareSingle, sendRequestParts } from "../src/client/send-request.ts";
import { namesrvConfig } from "../src/config/namesrv-config.ts";
import { defaultsOf } from "../src/config/schema.ts";
import { createNameServer } from "../src/namesrv/index.ts";
import { encodeProperties, encodeRecord } from "../src/protocol/message/index.ts";
import { encodeRegisterBrokerBody, topicConfig } from "../src/protocol/route/index.ts";
import { RemotingClient, RemotingCommand, RemotingServer, RequestCode } from "../src/remoting/index.ts";
import { spawnServer } from "./lib/child.ts";
import { BENCH_ECHO_CODE } from "./lib/echo-server.ts";
import { closedLoop } from "./lib/load.ts";
import { printTable, type Row } from "./lib/report.ts";

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000);
const BODY_BYTES = 256;
const PULL_BATCH = 32;
const log = pino({ level: "warn" });
const host = { ip: new Uint8Array([127, 0, 0, 1]), port: 10911 };

/** Child mode: NameServer + minimal broker; prints the NameServer's port. */
async function serve(): Promise<void> {
  const ns = createNameServer(
    {
      namesrv: {
        ...defaultsOf(namesrvConfig),
        kvConfigPath: join(tmpdir(), "rocketbun-bench-client-kv.json"),
      },
      server: { listenPort: 0, bindAddress: "127.0.0.1", serverChannelMaxIdleTimeSeconds: 0 },
    },
    { log },
  );
  await ns.start();
  const broker = new RemotingServer({ name: "bench-broker", listenPort: 0, bindAddress: "127.0.0.1", log });
  const records: Uint8Array[] = [];
  for (let i = 0; i < PULL_BATCH; i++) {
    records.push(
      encodeRecord(
        {
          topic: "BenchTopic",
          queueId: 0,
          flag: 0,
          sysFlag: 0,
          bornTimestamp: Date.now(),
          bornHost: host,
          storeHost: host,
          reconsumeTimes: 0,
          preparedTransactionOffset: 0,
          body: new Uint8Array(BODY_BYTES),
          properties: encodeProperties(
            new Map([
              ["UNIQ_KEY", `ID${i}`],
              ["TAGS", "A"],
              ["WAIT", "true"],
            ]),
          ),
        },
        { queueOffset: i, physicalOffset: i * 400, storeTimestamp: Date.now() },
      ),
    );
  }
  const pullBody = new Uint8Array(records.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const r of records) {
    pullBody.set(r, at);
    at += r.length;
  }
  let offset = 0;
  broker.registry.register(RequestCode.SEND_MESSAGE_V2, () =>
    RemotingCommand.response(0, null, {
      msgId: "7F00000100002A9F0000000000000000",
      queueId: "0",
      queueOffset: String(offset++),
      MSG_REGION: "DefaultRegion",
      TRACE_ON: "true",
    }),
  );
  broker.registry.register(RequestCode.PULL_MESSAGE, () =>
    RemotingCommand.response(
      0,
      "FOUND",
      { suggestWhichBrokerId: "0", nextBeginOffset: "32", minOffset: "0", maxOffset: "32" },
      pullBody,
    ),
  );
  broker.registry.register(RequestCode.HEART_BEAT, () => RemotingCommand.response(0, null, {}));
  broker.registry.register(RequestCode.UNREGISTER_CLIENT, () => RemotingCommand.response(0, null, {}));
  // Answers as a send is answered (same extFields) so the echo is a same-size ceiling both ways.
  broker.registry.register(BENCH_ECHO_CODE, () =>
    RemotingCommand.response(0, null, {
      msgId: "7F00000100002A9F0000000000000000",
      queueId: "0",
      queueOffset: String(offset),
      MSG_REGION: "DefaultRegion",
      TRACE_ON: "true",
    }),
  );
  await broker.start();
  const addr = `127.0.0.1:${broker.port}`;
  const topics = ["BenchTopic", "bench-broker"].map(
    (t) => [t, topicConfig(t, { readQueueNums: 4, writeQueueNums: 4 })] as const,
  );
  const nsClient = new RemotingClient({ name: "bench-reg", log });
  await nsClient.invoke(
    `127.0.0.1:${ns.port}`,
    RemotingCommand.request(
      RequestCode.REGISTER_BROKER,
      {
        brokerName: "bench-broker",
        brokerAddr: addr,
        clusterName: "DefaultCluster",
        haServerAddr: addr,
        brokerId: "0",
      },
      encodeRegisterBrokerBody({
        topicConfigSerializeWrapper: {
          topicConfigTable: new Map(topics),
          dataVersion: { stateVersion: 0, timestamp: Date.now(), counter: 1 },
          topicQueueMappingInfoMap: new Map(),
        },
        filterServerList: [],
      }),
    ),
    3000,
  );
  console.log(`PORT ${ns.port}`);
  console.log(`BROKER ${addr}`);
}

async function bench(): Promise<Row[]> {
  const child = await spawnServer(import.meta.path, ["serve"]);
  const namesrvAddr = `127.0.0.1:${child.port}`;
  const producer = await createProducer({ namesrvAddr, log, sendLatencyFaultEnable: false });
  const body = new Uint8Array(BODY_BYTES);
  const brokerAddr = (await producer.client.route("BenchTopic"))!.brokerDatas[0]!.brokerAddrs.get(0)!;
  const echoClient = new RemotingClient({ name: "bench-echo", log });
  const prep = {
    nextUniqueId: producer.client.nextUniqueId,
    compressOverBytes: 4096,
    compressLevel: 5,
    bodyBytesMax: 4 << 20,
  };
  // The ceiling carries the header a send carries (built the same way), so both move frames of one size.
  const sendExt = () =>
    sendRequestParts(
      prepareSingle({ topic: "BenchTopic", body, tags: "A", keys: "k" }, prep),
      { topic: "BenchTopic", brokerName: "bench-broker", queueId: 0 },
      "PG",
    ).ext;
  const echo = () =>
    echoClient.invoke(brokerAddr, RemotingCommand.request(BENCH_ECHO_CODE, sendExt(), body), 10_000);
  const echo1 = await closedLoop(echo, 1, durationMs);
  const echo64 = await closedLoop(echo, 64, durationMs);
  const send = () => producer.send({ topic: "BenchTopic", body, tags: "A", keys: "k" });
  const send1 = await closedLoop(send, 1, durationMs);
  const send64 = await closedLoop(send, 64, durationMs);
  const api = new BrokerApi(producer.client.remoting, 3000);
  const pull = async () => {
    const r = await api.pull(
      brokerAddr,
      {
        consumerGroup: "CG",
        topic: "BenchTopic",
        queueId: 0,
        queueOffset: 0,
        maxMsgNums: PULL_BATCH,
        sysFlag: 0,
        commitOffset: 0,
        suspendTimeoutMillis: 0,
        subVersion: 0,
      },
      3000,
    );
    if (decodeMessages(r.body!, "bench-broker").length !== PULL_BATCH) throw new Error("short pull");
  };
  const pull8 = await closedLoop(pull, 8, durationMs);
  await echoClient.shutdown();
  await producer.shutdown();
  await child.stop();
  return [
    { name: "remoting echo of a send frame, 1 in flight", value: echo1, unit: "round trips/s" },
    { name: "remoting echo of a send frame, 64 in flight", value: echo64, unit: "round trips/s" },
    { name: "producer.send, 256 B, 1 in flight", value: send1, unit: "sends/s", ceiling: echo1, target: 0.5 },
    {
      name: "producer.send, 256 B, 64 in flight",
      value: send64,
      unit: "sends/s",
      ceiling: echo64,
      target: 0.5,
    },
    { name: "pull + decode, 32 × 256 B, 8 in flight", value: pull8 * PULL_BATCH, unit: "messages/s" },
  ];
}

if (import.meta.main) {
  if (process.argv[2] === "serve") await serve();
  else
    printTable(
      `client: producer and pull over the remoting layer, ${durationMs} ms per measure`,
      await bench(),
    );
}
