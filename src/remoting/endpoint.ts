/**
 * RemotingEndpoint: one side of the protocol, the same for servers and clients (as Java's
 * NettyRemotingAbstract). It serves incoming requests through a processor registry, matches
 * responses to its own pending requests, and invokes requests on any Connection it is given.
 */
import type { Logger } from "pino";
import { RemotingCommand, RemotingFlag } from "./command.ts";
import type { Connection, ConnectionHandler } from "./connection.ts";
import { ConnectionClosedError, TooManyRequestsError } from "./errors.ts";
import { ProcessorRegistry, type RequestContext } from "./processor-registry.ts";
import { requestCodeName } from "./request-code.ts";
import { ResponseCode } from "./response-code.ts";
import { ResponseTable } from "./response-table.ts";
import { Semaphore } from "./semaphore.ts";

/** V5_3_3's ordinal: ≥ 401 makes a Java NameServer answer in standard JSON (style habit 13). */
export const DEFAULT_REMOTING_VERSION = 479;
/** Server-side permits (spec remoting §4.4); clients use 65535. */
export const DEFAULT_SERVER_ASYNC_PERMITS = 64;
export const DEFAULT_SERVER_ONEWAY_PERMITS = 256;
export const DEFAULT_CLIENT_PERMITS = 65535;
/** Opaques wrap below 2^31 (style habit 9). */
const OPAQUE_MAX = 0x7fffffff;

export interface EndpointOptions {
  name: string;
  registry?: ProcessorRegistry;
  version?: number;
  language?: string;
  asyncPermits?: number;
  onewayPermits?: number;
  scanIntervalMs?: number;
  /** Called on every request this endpoint sends, once stamped (Java's client RPCHook.doBeforeRequest: ACL signing). */
  beforeRequest?: (request: RemotingCommand) => void;
  log: Logger;
}

export type ConnectionListener = (conn: Connection, reason: string) => void;

export class RemotingEndpoint implements ConnectionHandler {
  readonly name: string;
  readonly registry: ProcessorRegistry;
  readonly responses: ResponseTable;
  readonly version: number;
  readonly language: string;
  private readonly asyncPermits: Semaphore;
  private readonly onewayPermits: Semaphore;
  private readonly log: Logger;
  private readonly closeListeners: ConnectionListener[] = [];
  private readonly beforeRequest: ((request: RemotingCommand) => void) | undefined;
  private opaque = 0;

  constructor(options: EndpointOptions) {
    this.name = options.name;
    this.registry = options.registry ?? new ProcessorRegistry();
    this.version = options.version ?? DEFAULT_REMOTING_VERSION;
    this.language = options.language ?? "JAVA";
    this.asyncPermits = new Semaphore(options.asyncPermits ?? DEFAULT_CLIENT_PERMITS);
    this.onewayPermits = new Semaphore(options.onewayPermits ?? DEFAULT_CLIENT_PERMITS);
    this.responses = new ResponseTable(options.scanIntervalMs);
    this.log = options.log;
    this.beforeRequest = options.beforeRequest;
    this.registry.onError = (request, err) =>
      this.log.error({ err, code: requestCodeName(request.code) }, "processor failed");
  }

  /** Called when any connection of this endpoint closes (after its futures failed). */
  onConnectionClosed(listener: ConnectionListener): void {
    this.closeListeners.push(listener);
  }

  onCommand(conn: Connection, cmd: RemotingCommand): void {
    if (cmd.isResponse) {
      if (!this.responses.complete(conn.id, cmd)) {
        this.log.warn({ opaque: cmd.opaque, addr: conn.remoteAddress }, "response matched no request");
      }
      return;
    }
    this.registry.dispatch(cmd, this.contextFor(conn, cmd));
  }

  /** Answers SYSTEM_ERROR with the reason, as Java answers a header it cannot bind (oneway: nothing). */
  onRefused(conn: Connection, request: RemotingCommand, reason: string): void {
    this.log.debug({ addr: conn.remoteAddress, code: request.code, reason }, "request refused");
    this.contextFor(conn, request).reply(RemotingCommand.response(ResponseCode.SYSTEM_ERROR, reason));
  }

  onClose(conn: Connection, reason: string): void {
    this.responses.failConnection(conn.id, conn.remoteAddress, reason);
    for (const listener of this.closeListeners) {
      try {
        listener(conn, reason);
      } catch (err) {
        this.log.error({ err }, "connection-closed listener failed");
      }
    }
  }

  /** Sends a request and resolves with its response (Java's invokeSync; takes an async permit as 5.x does). */
  async invoke(conn: Connection, request: RemotingCommand, timeoutMs: number): Promise<RemotingCommand> {
    const acquired = this.asyncPermits.tryAcquire(timeoutMs);
    if (acquired !== true && !(await acquired)) throw this.permitError("invoke", timeoutMs);
    try {
      return await this.send(conn, request, timeoutMs);
    } finally {
      this.asyncPermits.release();
    }
  }

  /** Callback form (Java's invokeAsync): the callback gets the response or the error, exactly once. */
  invokeAsync(
    conn: Connection,
    request: RemotingCommand,
    timeoutMs: number,
    callback: (err: Error | null, response?: RemotingCommand) => void,
  ): void {
    this.invoke(conn, request, timeoutMs).then(
      (response) => callback(null, response),
      (err: Error) => callback(err),
    );
  }

  /**
   * Sends a request that gets no response. Resolves once it is handed to the transport. Not an
   * async function: with a permit free, as nearly always, the request goes out in this turn with
   * no coroutine (a transaction's END_TRANSACTION is oneway, one per transaction).
   */
  invokeOneway(conn: Connection, request: RemotingCommand, timeoutMs: number): Promise<void> {
    const acquired = this.onewayPermits.tryAcquire(timeoutMs);
    if (acquired === true) return this.sendOneway(conn, request);
    if (acquired === false) return Promise.reject(this.permitError("invokeOneway", timeoutMs));
    return acquired.then((ok) => {
      if (!ok) throw this.permitError("invokeOneway", timeoutMs);
      return this.sendOneway(conn, request);
    });
  }

  /** Sends a oneway request holding a permit, which it gives back; a failure is a rejected promise. */
  private sendOneway(conn: Connection, request: RemotingCommand): Promise<void> {
    try {
      this.stamp(request);
      request.flag |= RemotingFlag.ONEWAY;
      if (!conn.send(request))
        return Promise.reject(new ConnectionClosedError(conn.remoteAddress, "send on a closed connection"));
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    } finally {
      this.onewayPermits.release();
    }
  }

  /** Fails every pending request (used at shutdown). */
  close(): void {
    this.responses.failAll(this.name);
  }

  private send(conn: Connection, request: RemotingCommand, timeoutMs: number): Promise<RemotingCommand> {
    this.stamp(request);
    return new Promise<RemotingCommand>((resolve, reject) => {
      this.responses.add(conn.id, request.opaque, {
        deadline: Date.now() + timeoutMs,
        code: request.code,
        addr: conn.remoteAddress,
        timeoutMs,
        resolve,
        reject,
      });
      if (!conn.send(request)) {
        this.responses.take(conn.id, request.opaque);
        reject(new ConnectionClosedError(conn.remoteAddress, "send on a closed connection"));
      }
    });
  }

  private stamp(request: RemotingCommand): void {
    this.opaque = this.opaque >= OPAQUE_MAX ? 1 : this.opaque + 1;
    request.opaque = this.opaque;
    request.version = this.version;
    request.language = this.language;
    request.flag &= ~RemotingFlag.RESPONSE;
    this.beforeRequest?.(request);
  }

  private permitError(what: string, timeoutMs: number): Error {
    return timeoutMs <= 0
      ? new TooManyRequestsError(`${what} invoke too fast`)
      : new TooManyRequestsError(`${what} tryAcquire semaphore timeout, ${timeoutMs}ms`);
  }

  private contextFor(conn: Connection, request: RemotingCommand): RequestContext {
    return new ReplyContext(conn, request, this.version, this.language);
  }
}

/** One request's way back to its sender; a class, since one is made per request on the hot path. */
class ReplyContext implements RequestContext {
  replied = false;

  constructor(
    readonly connection: Connection,
    private readonly request: RemotingCommand,
    private readonly version: number,
    private readonly language: string,
  ) {}

  reply(response: RemotingCommand): void {
    if (this.replied) return;
    this.replied = true;
    // Oneway requests never get an answer, whatever happened (spec §4.1, HEAD behaviour).
    if (this.request.isOneway) return;
    response.opaque = this.request.opaque;
    response.flag |= RemotingFlag.RESPONSE;
    response.serializeType = this.request.serializeType;
    response.version = this.version;
    response.language = this.language;
    this.connection.send(response);
  }
}
