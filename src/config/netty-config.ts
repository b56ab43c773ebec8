/**
 * RocketMQ's NettyServerConfig and NettyClientConfig keys. Bun has no Netty: thread, allocator and
 * epoll keys are accepted so existing files load, and documented as having no effect here.
 */
import { availableParallelism } from "node:os";
import { type ConfigOf, defineSection } from "./schema.ts";

export const DEFAULT_BIND_ADDRESS = "0.0.0.0";
export const DEFAULT_SERVER_ONEWAY_SEMAPHORE_VALUE = 256;
export const DEFAULT_SERVER_ASYNC_SEMAPHORE_VALUE = 64;
export const DEFAULT_SERVER_CHANNEL_MAX_IDLE_TIME_SECONDS = 120;
export const DEFAULT_SERVER_SOCKET_BACKLOG = 1024;
export const DEFAULT_CLIENT_ONEWAY_SEMAPHORE_VALUE = 65535;
export const DEFAULT_CLIENT_ASYNC_SEMAPHORE_VALUE = 65535;
export const DEFAULT_CONNECT_TIMEOUT_MILLIS = 3000;
export const DEFAULT_CLIENT_CHANNEL_MAX_IDLE_TIME_SECONDS = 120;

const NO_EFFECT = "accepted for compatibility with RocketMQ files; no effect in RocketBun";
const port = { min: 0, max: 65535 } as const;
const nonNegative = { min: 0 } as const;

export const nettyServerConfig = defineSection("nettyServerConfig", {
  bindAddress: { type: "string", default: DEFAULT_BIND_ADDRESS, doc: "address the remoting server binds" },
  listenPort: {
    type: "int",
    default: 0,
    ...port,
    important: true,
    doc: "remoting port; each role sets its default (NameServer 9876, Broker 10911) before the file is read, so the file wins; 0 picks a free port",
  },
  serverWorkerThreads: { type: "int", default: 8, ...nonNegative, doc: NO_EFFECT },
  serverCallbackExecutorThreads: { type: "int", default: 0, ...nonNegative, doc: NO_EFFECT },
  serverSelectorThreads: { type: "int", default: 3, ...nonNegative, doc: NO_EFFECT },
  serverOnewaySemaphoreValue: {
    type: "int",
    default: DEFAULT_SERVER_ONEWAY_SEMAPHORE_VALUE,
    min: 1,
    doc: "oneway requests the server may have in flight to clients",
  },
  serverAsyncSemaphoreValue: {
    type: "int",
    default: DEFAULT_SERVER_ASYNC_SEMAPHORE_VALUE,
    min: 1,
    doc: "async requests the server may have in flight to clients",
  },
  serverChannelMaxIdleTimeSeconds: {
    type: "int",
    default: DEFAULT_SERVER_CHANNEL_MAX_IDLE_TIME_SECONDS,
    ...nonNegative,
    doc: "a connection with no read and no write for this long is closed; 0 disables",
  },
  serverSocketSndBufSize: {
    type: "int",
    default: 0,
    ...nonNegative,
    doc: "SO_SNDBUF; 0 keeps the OS default",
  },
  serverSocketRcvBufSize: {
    type: "int",
    default: 0,
    ...nonNegative,
    doc: "SO_RCVBUF; 0 keeps the OS default",
  },
  writeBufferHighWaterMark: { type: "int", default: 0, ...nonNegative, doc: NO_EFFECT },
  writeBufferLowWaterMark: { type: "int", default: 0, ...nonNegative, doc: NO_EFFECT },
  serverSocketBacklog: { type: "int", default: DEFAULT_SERVER_SOCKET_BACKLOG, min: 1, doc: "listen backlog" },
  serverNettyWorkerGroupEnable: { type: "bool", default: true, doc: NO_EFFECT },
  serverPooledByteBufAllocatorEnable: { type: "bool", default: true, doc: NO_EFFECT },
  useEpollNativeSelector: { type: "bool", default: false, doc: NO_EFFECT },
  enableShutdownGracefully: {
    type: "bool",
    default: false,
    doc: "on shutdown, answer new requests with GO_AWAY and wait for in-flight ones",
  },
  shutdownWaitTimeSeconds: { type: "int", default: 30, ...nonNegative, doc: "graceful shutdown wait" },
});

export type NettyServerConfig = ConfigOf<typeof nettyServerConfig>;

export const nettyClientConfig = defineSection("nettyClientConfig", {
  clientWorkerThreads: { type: "int", default: 4, ...nonNegative, doc: NO_EFFECT },
  clientCallbackExecutorThreads: {
    type: "int",
    default: availableParallelism(),
    ...nonNegative,
    doc: NO_EFFECT,
  },
  clientOnewaySemaphoreValue: {
    type: "int",
    default: DEFAULT_CLIENT_ONEWAY_SEMAPHORE_VALUE,
    min: 1,
    doc: "oneway requests a client may have in flight",
  },
  clientAsyncSemaphoreValue: {
    type: "int",
    default: DEFAULT_CLIENT_ASYNC_SEMAPHORE_VALUE,
    min: 1,
    doc: "async requests a client may have in flight",
  },
  connectTimeoutMillis: {
    type: "int",
    default: DEFAULT_CONNECT_TIMEOUT_MILLIS,
    min: 1,
    doc: "TCP connect timeout",
  },
  channelNotActiveInterval: { type: "long", default: 60_000, ...nonNegative, doc: NO_EFFECT },
  scanAvailableNameSrv: {
    type: "bool",
    default: true,
    doc: "probe each NameServer address by connecting every connectTimeoutMillis",
  },
  clientChannelMaxIdleTimeSeconds: {
    type: "int",
    default: DEFAULT_CLIENT_CHANNEL_MAX_IDLE_TIME_SECONDS,
    ...nonNegative,
    doc: "the client closes a connection idle this long; 0 disables",
  },
  clientSocketSndBufSize: {
    type: "int",
    default: 0,
    ...nonNegative,
    doc: "SO_SNDBUF; 0 keeps the OS default",
  },
  clientSocketRcvBufSize: {
    type: "int",
    default: 0,
    ...nonNegative,
    doc: "SO_RCVBUF; 0 keeps the OS default",
  },
  clientPooledByteBufAllocatorEnable: { type: "bool", default: false, doc: NO_EFFECT },
  clientCloseSocketIfTimeout: {
    type: "bool",
    default: true,
    doc: "close the connection when a request on it times out",
  },
  useTLS: {
    type: "bool",
    default: false,
    doc: "connect to other servers (a broker to its NameServers) with TLS, as tls.enable; see the tls.client.* keys",
  },
  socksProxyConfig: { type: "string", default: "{}", doc: NO_EFFECT },
  writeBufferHighWaterMark: { type: "int", default: 0, ...nonNegative, doc: NO_EFFECT },
  writeBufferLowWaterMark: { type: "int", default: 0, ...nonNegative, doc: NO_EFFECT },
  disableCallbackExecutor: { type: "bool", default: false, doc: NO_EFFECT },
  disableNettyWorkerGroup: { type: "bool", default: false, doc: NO_EFFECT },
  maxReconnectIntervalTimeSeconds: {
    type: "long",
    default: 60,
    ...nonNegative,
    doc: "upper bound of the reconnect back-off",
  },
  enableReconnectForGoAway: { type: "bool", default: true, doc: "reconnect when a server sends GO_AWAY" },
});

export type NettyClientConfig = ConfigOf<typeof nettyClientConfig>;
