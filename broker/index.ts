/**
 * createBroker: the store, metadata, processors and services of one broker, served on `listenPort`
 * and on the VIP port `listenPort − 2`, registered with every configured NameServer.
 */
import { resolve } from "node:path";
import type { Logger } from "pino";
import { warnIfExposed } from "../src/acl/exposure.ts";
import { PlainAcl } from "../src/acl/plain-acl.ts";
import { createRequestSigner } from "../src/acl/signature.ts";
import { innerCredentialsOf } from "../src/config/acl-config.ts";
import type { BrokerRoleConfig } from "../src/config/role-config.ts";
import { RuntimeChanges } from "../src/config/runtime-changes.ts";
import { logger as componentLogger } from "../src/log.ts";
import { NotifyConsumerIdsChangedRequestHeader } from "../src/protocol/headers/client.ts";
import { parseHostAddress } from "../src/protocol/message/index.ts";
import { RemotingCommand } from "../src/remoting/command.ts";
import type { Connector } from "../src/remoting/connector.ts";
import { RemotingClient } from "../src/remoting/remoting-client.ts";
import { RemotingServer } from "../src/remoting/remoting-server.ts";
import { RequestCode } from "../src/remoting/request-code.ts";
import { ServerResources } from "../src/remoting/server-resources.ts";
import type { ServerTlsOptions } from "../src/remoting/tls-options.ts";
import type { BrokerContext } from "./context.ts";
import { consumerFiltersOf, startFilterSweep } from "./filter/message-filters.ts";
import { ConsumerOffsets } from "./metadata/consumer-offsets.ts";
import { DelayOffsets } from "./metadata/delay-offsets.ts";
import { SubscriptionGroups } from "./metadata/subscription-groups.ts";
import { TopicConfigs } from "./metadata/topic-configs.ts";
import { brokerProcessorTable, defineBrokerLanes, vipProcessorTable } from "./processors.ts";
import { ClientManager } from "./services/client-manager.ts";
import { LongPollService } from "./services/long-poll.ts";
import { popServiceOf } from "./services/pop-leases.ts";
import { RebalanceLocks } from "./services/rebalance-locks.ts";
import { BrokerRegistration } from "./services/registration.ts";
import { ScheduleService } from "./services/schedule.ts";
import type { BrokerService } from "./services/service.ts";
import { BrokerStats } from "./services/stats.ts";
import { StatsSamplingService } from "./services/stats-sampling.ts";
import { TimerProgress } from "./services/timer/timer-progress.ts";
import { TimerService } from "./services/timer/timer-service.ts";
import { TransactionCheckService } from "./services/transaction/check-service.ts";
import { Transactions } from "./services/transaction/transactions.ts";
import { FileMessageStore } from "./store/file-store.ts";
import type { MessageStore } from "./store/message-store.ts";
import { parseDelayLevels } from "./store/store-options.ts";
import { TopicManager } from "./topics/topic-manager.ts";

/** Broker → client notices wait at most this long for a permit (spec remoting §4.5). */
const NOTIFY_TIMEOUT_MS = 10;
const CLIENT_SCAN_INTERVAL_MS = 10_000;

export interface BrokerDeps {
  log?: Logger;
  /** How the broker reaches NameServers: TCP by default, in-process under `start`. */
  connector?: Connector;
  /** A store other than the file store (tests use the memory store). */
  store?: MessageStore;
  /** Connection cap and buffer budget shared with the process's other servers (`start`). */
  resources?: ServerResources;
  /**
   * An ACL its owner opened and will stop (`start` shares one with its NameServer). Used when
   * aclEnable is on, instead of a PlainAcl of the broker's own.
   */
  acl?: PlainAcl;
  /** TLS on both ports (tls.server.*); absent: plaintext only. */
  tls?: ServerTlsOptions;
}

export interface Broker {
  readonly context: BrokerContext;
  readonly server: RemotingServer;
  readonly vipServer: RemotingServer;
  /** `brokerIP1:port` as registered. */
  readonly brokerAddr: string;
  /** Resolves to RocketMQ's boot line. */
  start(): Promise<string>;
  stop(): Promise<void>;
}

export function bootLine(brokerName: string, brokerAddr: string, namesrvAddr: string): string {
  return `The broker[${brokerName}, ${brokerAddr}] boot success. serializeType=JSON and name server is ${namesrvAddr}`;
}

export function createBroker(config: BrokerRoleConfig, deps: BrokerDeps = {}): Broker {
  const log = deps.log ?? componentLogger("broker");
  const bc = config.broker;
  const sc = config.messageStore;
  const root = sc.storePathRootDir;
  const store = deps.store ?? new FileMessageStore({ ...sc }, { log: log.child({ part: "store" }) });
  const topicConfigs = new TopicConfigs(root, log);
  const groups = new SubscriptionGroups(root, log);
  const offsets = new ConsumerOffsets(root, log);
  const clients = new ClientManager();
  const ownsResources = deps.resources === undefined;
  const resources =
    deps.resources ??
    new ServerResources({
      connectionsMax: config.rocketbun.serverConnectionsMax,
      bufferBytesMax: config.rocketbun.serverBufferBytesMax,
      log: log.child({ part: "limits" }),
    });
  const longPoll = new LongPollService(config.limits.heldPullsMax, resources.budget);
  const locks = new RebalanceLocks({
    maxLiveMs: config.limits["rocketmq.broker.rebalance.lockMaxLiveTime"],
    locksMax: config.limits.rebalanceLocksMax,
    log: log.child({ part: "locks" }),
  });
  const runtime = { brokerPermission: bc.brokerPermission };
  const runtimeChanges = new RuntimeChanges({
    path: bc.brokerConfigPath,
    initial: config.runtimeChanges,
    log: log.child({ part: "config" }),
  });
  // Registrations cap topic permissions by the broker's, as UPDATE_BROKER_CONFIG last set it.
  const topics = new TopicManager(
    {
      ...bc,
      timerWheelEnable: sc.timerWheelEnable,
      get brokerPermission() {
        return runtime.brokerPermission;
      },
    },
    topicConfigs,
  );
  const netty = config.nettyServer;
  const serverOptions = {
    bindAddress: netty.bindAddress,
    idleSeconds: netty.serverChannelMaxIdleTimeSeconds,
    asyncPermits: netty.serverAsyncSemaphoreValue,
    onewayPermits: netty.serverOnewaySemaphoreValue,
    frameBytesMax: config.rocketbun.frameBytesMax,
    outboundBytesMax: config.rocketbun.socketOutboundBytesMax,
    version: config.rocketbun.remotingVersion,
    language: config.rocketbun.remotingLanguage,
    resources,
    tls: deps.tls,
  };
  const server = new RemotingServer({
    ...serverOptions,
    name: "broker",
    listenPort: netty.listenPort,
    log: log.child({ part: "remoting" }),
  });
  const vipPort = netty.listenPort === 0 ? 0 : netty.listenPort - 2;
  const vipServer = new RemotingServer({
    ...serverOptions,
    name: "broker-vip",
    listenPort: vipPort,
    log: log.child({ part: "vip" }),
  });
  // Java's BrokerOuterAPI signs with innerClientAuthenticationCredentials: NameServers checking ACL
  // take registrations from admin accounts only.
  const credentials = innerCredentialsOf(config.auth);
  const outer = new RemotingClient({
    name: "broker-outer",
    log: log.child({ part: "outer" }),
    connector: deps.connector,
    version: config.rocketbun.remotingVersion,
    language: config.rocketbun.remotingLanguage,
    ...(credentials ? { beforeRequest: createRequestSigner(credentials) } : {}),
  });
  const namesrvAddrs = () =>
    bc.namesrvAddr
      .split(";")
      .map((a) => a.trim())
      .filter((a) => a !== "");
  const timers: ReturnType<typeof setInterval>[] = [];
  let brokerAddr = `${bc.brokerIP1}:${netty.listenPort}`;
  let storeHost = parseHostAddress(brokerAddr);
  let registration: BrokerRegistration | null = null;

  // ACL 1.0: every request on both ports is checked before its processor runs.
  const aclFile = resolve(config.rocketbun.rocketbunHome, config.limits.aclPlainFile);
  const ownAcl =
    bc.aclEnable && !deps.acl
      ? new PlainAcl({
          file: aclFile,
          watchIntervalMs: config.limits.aclWatchIntervalMs,
          log: log.child({ part: "acl" }),
        })
      : null;
  const acl = bc.aclEnable ? (deps.acl ?? ownAcl) : null;

  const transactions = new Transactions({
    store,
    offsets,
    topics,
    storeHost: () => storeHost,
    log: log.child({ part: "transaction" }),
  });
  // Background features, started in this order once store and metadata are loaded, stopped in
  // reverse before the store shuts down.
  const stats = new BrokerStats(bc.brokerClusterName);
  const delayOffsets = new DelayOffsets(root, log);
  const services: BrokerService[] = [
    new StatsSamplingService(stats.items),
    new ScheduleService({
      store,
      offsets: delayOffsets,
      delayLevelsMs: parseDelayLevels(sc.messageDelayLevel),
      persistIntervalMs: sc.flushDelayOffsetInterval,
      log: log.child({ part: "schedule" }),
    }),
    ...(sc.timerWheelEnable
      ? [
          new TimerService({
            store,
            progress: new TimerProgress(root, log),
            precisionMs: sc.timerPrecisionMs,
            flushIntervalMs: sc.timerFlushIntervalMs,
            log: log.child({ part: "timer" }),
          }),
        ]
      : []),
    new TransactionCheckService({
      config: { ...bc, fileReservedTime: sc.fileReservedTime },
      store,
      offsets,
      topics,
      clients,
      endpoint: () => server.endpoint,
      brokerName: bc.brokerName,
      storeHost: () => storeHost,
      progress: transactions.progress,
      stats: transactions.stats,
      log: log.child({ part: "transaction-check" }),
    }),
  ];

  // Copies, since UPDATE_BROKER_CONFIG changes some keys of these while the broker runs.
  const liveBroker = { ...bc };
  const liveStore = { ...sc };
  const ctx: BrokerContext = {
    brokerConfig: liveBroker,
    storeConfig: liveStore,
    nettyServerConfig: config.nettyServer,
    nettyClientConfig: config.nettyClient,
    limits: config.limits,
    get brokerAddr() {
      return brokerAddr;
    },
    get storeHost() {
      return storeHost;
    },
    store,
    topics,
    groups,
    offsets,
    delayOffsets,
    clients,
    longPoll,
    locks,
    budget: resources.budget,
    stats,
    transactions,
    endpoint: () => server.endpoint,
    runtime,
    updateConfig: (section, key, value) => {
      (section === "broker"
        ? (liveBroker as Record<string, unknown>)
        : (liveStore as Record<string, unknown>))[key] = value;
    },
    runtimeChanges,
    onRuntimeChanged: () => void registration?.registerAll(),
    acl,
    runtimeInfo: () => services.flatMap((s) => [...(s.runtimeInfo?.() ?? [])]),
    laneLoad: (lane) => {
      const now = Date.now();
      const loads = [server, vipServer].map((s) => s.registry.laneLoad(lane, now));
      return {
        waiting: loads.reduce((n, l) => n + (l?.waiting ?? 0), 0),
        headWaitMs: Math.max(0, ...loads.map((l) => l?.headWaitMs ?? 0)),
      };
    },
    log,
  };

  // POP leases: recovered from their log before the ports open, persisted until after they close.
  services.push(popServiceOf(ctx));

  const table = brokerProcessorTable(ctx);
  defineBrokerLanes(server.registry, ctx);
  defineBrokerLanes(vipServer.registry, ctx);
  server.registry.registerAll(table);
  vipServer.registry.registerAll(vipProcessorTable(table));
  for (const s of [server, vipServer]) {
    if (acl) s.registry.guard = acl.guard;
    s.endpoint.onConnectionClosed((conn) => {
      clients.connectionClosed(conn);
      longPoll.connectionClosed(conn);
      // Also reached when the heartbeat scan expires a client: it closes the connection.
      if (config.limits.rebalanceLockReleaseOnClose) locks.connectionClosed(conn);
    });
  }
  store.onMessageArrived((topic, queueId, logicOffset, tagsCode, _storeTimestamp, properties) =>
    longPoll.notifyMessageArriving(topic, queueId, logicOffset, tagsCode, properties),
  );
  clients.onConsumerGroupChanged = (group) => {
    const config = groups.get(group.groupName);
    if (!bc.notifyConsumerIdsChangedEnable || config?.notifyConsumerIdsChangedEnable === false) return;
    if (group.messageModel === "BROADCASTING") return;
    const ext = NotifyConsumerIdsChangedRequestHeader.encode({ consumerGroup: group.groupName });
    for (const ch of group.channels.values()) {
      server.endpoint
        .invokeOneway(
          ch.conn,
          RemotingCommand.request(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, { ...ext }),
          NOTIFY_TIMEOUT_MS,
        )
        .catch((err: Error) =>
          log.debug({ err: err.message, client: ch.clientId }, "notify consumer ids changed failed"),
        );
    }
  };

  return {
    context: ctx,
    server,
    vipServer,
    get brokerAddr() {
      return brokerAddr;
    },
    async start() {
      const changed = runtimeChanges.entries();
      if (changed.length > 0) {
        log.info(
          { path: runtimeChanges.path, keys: changed.map(([k]) => k) },
          "run-time config changes applied",
        );
      }
      // Before the ports open, so no request is ever served without the file's accounts.
      await ownAcl?.open();
      ownAcl?.startWatching();
      await store.open();
      await Promise.all([groups.load(), offsets.load(), consumerFiltersOf(ctx).load()]);
      await topics.load();
      for (const s of services) await s.start();
      await server.start();
      await vipServer.start();
      warnIfExposed(log, {
        role: "Broker",
        bindAddress: netty.bindAddress,
        ports: [
          { name: "port", port: server.port },
          { name: "VIP port", port: vipServer.port },
        ],
        aclEnabled: acl !== null,
        risk: "delete topics and groups, change the broker's config, and read and write every message",
        aclFile,
      });
      brokerAddr = `${bc.brokerIP1}:${server.port}`;
      storeHost = parseHostAddress(brokerAddr);
      registration = new BrokerRegistration({
        identity: {
          clusterName: bc.brokerClusterName,
          brokerName: bc.brokerName,
          brokerAddr,
          haServerAddr: `${bc.brokerIP2}:${sc.haListenPort || server.port + 1}`,
          brokerId: bc.brokerId,
        },
        namesrvAddrs,
        topics: () => topics.registrationWrapper(),
        client: outer,
        registerTimeoutMs: bc.registerBrokerTimeoutMills,
        periodMs: bc.registerNameServerPeriod,
        log: log.child({ part: "registration" }),
      });
      topics.onChanged = () => void registration?.registerAll();
      offsets.startPersisting(bc.flushConsumerOffsetInterval);
      groups.startPersisting(bc.flushConsumerOffsetInterval);
      topicConfigs.startPersisting(bc.flushConsumerOffsetInterval);
      startFilterSweep(ctx, bc.flushConsumerOffsetInterval, timers);
      const scan = setInterval(
        () => clients.scanExpired(Date.now(), bc.channelExpiredTimeout),
        CLIENT_SCAN_INTERVAL_MS,
      );
      scan.unref?.();
      timers.push(scan);
      locks.start();
      if (namesrvAddrs().length > 0) await registration.start();
      const line = bootLine(bc.brokerName, brokerAddr, bc.namesrvAddr);
      log.debug(line); // printed once on stdout by the CLI
      return line;
    },
    async stop() {
      ownAcl?.stop();
      for (const t of timers) clearInterval(t);
      locks.stop();
      registration?.stop();
      if (registration && namesrvAddrs().length > 0) await registration.unregisterAll();
      await vipServer.stop();
      await server.stop();
      for (const s of [...services].reverse()) await s.stop();
      await Promise.all([
        offsets.shutdown(),
        groups.shutdown(),
        topicConfigs.shutdown(),
        consumerFiltersOf(ctx).shutdown(),
        runtimeChanges.close(),
      ]);
      await store.shutdown();
      await outer.shutdown();
      if (ownsResources) resources.stop();
    },
  };
}
