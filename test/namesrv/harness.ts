/**
 * Test harness: a NameServer on 127.0.0.1 port 0 with its files in a temp dir, and clients that
 * play brokers, producers and admin tools over real TCP in either serialization.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request, SERIALIZE_TYPES } from "../support/frames.ts";

export { request, SERIALIZE_TYPES };

import { createRequestSigner, type SessionCredentials } from "../../src/acl/signature.ts";
import { namesrvConfig } from "../../src/config/namesrv-config.ts";
import { defaultsOf } from "../../src/config/schema.ts";
import {
  createNameServer,
  type NameServer,
  type NameServerDeps,
  type NamesrvAclOptions,
  type NamesrvConfigLike,
} from "../../src/namesrv/index.ts";
import { bodyCrc } from "../../src/protocol/message/crc32.ts";
import {
  type DataVersion,
  encodeRegisterBrokerBody,
  type RegisterBrokerBody,
  type TopicConfig,
  topicConfig,
} from "../../src/protocol/route/index.ts";
import {
  type ExtFields,
  RemotingClient,
  type RemotingCommand,
  RequestCode,
  SerializeType,
} from "../../src/remoting/index.ts";

import { silent } from "../support/silent.ts";

export { silent };

export interface Harness extends AsyncDisposable {
  ns: NameServer;
  addr: string;
  dir: string;
  bootLine: string;
  /** A client (its own TCP connection) with the given remoting version, signing when given keys. */
  client(version?: number, keys?: SessionCredentials): RemotingClient;
}

export async function startNameServer(
  overrides: Partial<NamesrvConfigLike> = {},
  deps: Pick<NameServerDeps, "now" | "files" | "acl" | "log"> = {},
  runtimeChanges?: ReadonlyMap<string, string>,
  acl?: NamesrvAclOptions,
): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), "rocketbun-namesrv-"));
  const ns = createNameServer(
    {
      namesrv: {
        ...defaultsOf(namesrvConfig),
        kvConfigPath: join(dir, "kvConfig.json"),
        configStorePath: join(dir, "namesrv.properties"),
        ...overrides,
      },
      server: { listenPort: 0, bindAddress: "127.0.0.1", serverChannelMaxIdleTimeSeconds: 120 },
      runtimeChanges,
      ...(acl ? { acl } : {}),
    },
    { log: silent, ...deps },
  );
  const bootLine = await ns.start();
  const clients: RemotingClient[] = [];
  return {
    ns,
    dir,
    bootLine,
    addr: `127.0.0.1:${ns.port}`,
    client(version?: number, keys?: SessionCredentials) {
      const c = new RemotingClient({
        name: "test-client",
        log: silent,
        ...(version ? { version } : {}),
        ...(keys ? { beforeRequest: createRequestSigner(keys) } : {}),
      });
      clients.push(c);
      return c;
    },
    async [Symbol.asyncDispose]() {
      for (const c of clients) await c.shutdown();
      await ns.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface BrokerSpec {
  clusterName?: string;
  brokerName: string;
  brokerAddr: string;
  brokerId?: number;
  haServerAddr?: string;
  topics?: TopicConfig[];
  dataVersion?: DataVersion;
  filterServerList?: string[];
  extra?: ExtFields;
}

export function registerBody(spec: BrokerSpec): RegisterBrokerBody {
  return {
    topicConfigSerializeWrapper: {
      topicConfigTable: new Map((spec.topics ?? []).map((t) => [t.topicName, t])),
      dataVersion: spec.dataVersion ?? { stateVersion: 0, timestamp: 1700000000000, counter: 1 },
      topicQueueMappingInfoMap: new Map(),
    },
    filterServerList: spec.filterServerList ?? [],
  };
}

/** REGISTER_BROKER as a 5.x broker sends it (header fields as strings, CRC of the body). */
export function registerRequest(
  spec: BrokerSpec,
  serializeType: SerializeType = SerializeType.JSON,
): RemotingCommand {
  const body = encodeRegisterBrokerBody(registerBody(spec));
  return request(
    RequestCode.REGISTER_BROKER,
    {
      brokerName: spec.brokerName,
      brokerAddr: spec.brokerAddr,
      clusterName: spec.clusterName ?? "DefaultCluster",
      haServerAddr: spec.haServerAddr ?? spec.brokerAddr.replace(/:\d+$/, ":10912"),
      brokerId: String(spec.brokerId ?? 0),
      enableActingMaster: "false",
      compressed: "false",
      bodyCrc32: String(bodyCrc(body)),
      ...spec.extra,
    },
    body,
    serializeType,
  );
}

export { topicConfig };
