/**
 * The processor registry: request code → (processor, lane), plus a default processor.
 * A role is a table of [code, processor] pairs; registering a code twice is a bug and throws.
 * Dispatch follows Java's NettyRemotingAbstract (spec remoting §4.2): unknown code → 3 with Java's
 * remark; RemotingError → its code; any other throw → SYSTEM_ERROR; full lane → SYSTEM_BUSY.
 */
import { RemotingCommand } from "./command.ts";
import type { Connection } from "./connection.ts";
import { notSupportedRemark, OVERLOAD_REMARK, REJECT_REQUEST_REMARK, RemotingError } from "./errors.ts";
import { DEFAULT_LANE, Lane, type LaneLoad, type LaneOptions } from "./lane.ts";
import { ResponseCode } from "./response-code.ts";

export interface RequestContext {
  readonly connection: Connection;
  /** Answers the request; used by processors that returned null to answer later (long polling). */
  reply(response: RemotingCommand): void;
  /** True once a response was written (or the request was oneway and is finished). */
  readonly replied: boolean;
}

export type ProcessorResult = RemotingCommand | null | undefined;

/** Returns the response, or null to answer later through `ctx.reply` (or never, for oneway). */
export type Processor = (
  request: RemotingCommand,
  ctx: RequestContext,
) => ProcessorResult | Promise<ProcessorResult>;

export interface ProcessorRegistration {
  process: Processor;
  lane?: string;
  /** Java's rejectRequest(): true answers SYSTEM_BUSY without running the processor. */
  reject?: () => boolean;
}

export type ProcessorTableEntry = readonly [code: number, processor: Processor | ProcessorRegistration];

interface Entry {
  process: Processor;
  lane: Lane;
  reject?: () => boolean;
}

export type DispatchErrorListener = (request: RemotingCommand, error: unknown) => void;

/**
 * Checks a request just before its processor runs, on the processor's lane (Java's server-side
 * RPCHook.doBeforeRequest, which ACL uses). Returning lets the request through; throwing a
 * RemotingError answers its code and remark instead, and the processor never runs.
 */
export type RequestGuard = (request: RemotingCommand, connection: Connection) => void;

export class ProcessorRegistry {
  private readonly lanes = new Map<string, Lane>();
  private readonly table = new Map<number, Entry>();
  private defaultEntry: Entry | null = null;
  onError: DispatchErrorListener = () => {};
  guard: RequestGuard | null = null;

  constructor(defaultLane: LaneOptions = DEFAULT_LANE) {
    this.defineLane("default", defaultLane);
  }

  defineLane(name: string, options: LaneOptions): this {
    this.lanes.set(name, new Lane(name, options));
    return this;
  }

  /** The load of lane `name`, or undefined when no such lane is defined. */
  laneLoad(name: string, now = Date.now()): LaneLoad | undefined {
    return this.lanes.get(name)?.load(now);
  }

  register(code: number, processor: Processor | ProcessorRegistration): this {
    if (this.table.has(code)) throw new Error(`request code ${code} is registered twice`);
    this.table.set(code, this.entryOf(processor));
    return this;
  }

  registerAll(entries: Iterable<ProcessorTableEntry>): this {
    for (const [code, processor] of entries) this.register(code, processor);
    return this;
  }

  setDefault(processor: Processor | ProcessorRegistration): this {
    this.defaultEntry = this.entryOf(processor);
    return this;
  }

  has(code: number): boolean {
    return this.table.has(code);
  }

  /** Runs the request's processor; `ctx.reply` receives the outcome (or nothing, for oneway). */
  dispatch(request: RemotingCommand, ctx: RequestContext): void {
    const entry = this.table.get(request.code) ?? this.defaultEntry;
    if (!entry) {
      ctx.reply(
        RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, notSupportedRemark(request.code)),
      );
      return;
    }
    if (entry.reject?.()) {
      ctx.reply(RemotingCommand.response(ResponseCode.SYSTEM_BUSY, REJECT_REQUEST_REMARK));
      return;
    }
    const accepted = entry.lane.submit((done) => this.run(entry, request, ctx, done));
    if (!accepted) ctx.reply(RemotingCommand.response(ResponseCode.SYSTEM_BUSY, OVERLOAD_REMARK));
  }

  private run(entry: Entry, request: RemotingCommand, ctx: RequestContext, done: () => void): void {
    let result: ProcessorResult | Promise<ProcessorResult>;
    try {
      this.guard?.(request, ctx.connection);
      result = entry.process(request, ctx);
    } catch (err) {
      done();
      this.fail(request, ctx, err);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (response) => {
          done();
          if (response) ctx.reply(response);
        },
        (err: unknown) => {
          done();
          this.fail(request, ctx, err);
        },
      );
      return;
    }
    done();
    if (result) ctx.reply(result);
  }

  private fail(request: RemotingCommand, ctx: RequestContext, err: unknown): void {
    if (err instanceof RemotingError) {
      ctx.reply(RemotingCommand.response(err.code, err.remark));
      return;
    }
    this.onError(request, err);
    const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    ctx.reply(RemotingCommand.response(ResponseCode.SYSTEM_ERROR, text));
  }

  private entryOf(processor: Processor | ProcessorRegistration): Entry {
    const reg = typeof processor === "function" ? { process: processor } : processor;
    const laneName = reg.lane ?? "default";
    const lane = this.lanes.get(laneName);
    if (!lane) throw new Error(`lane '${laneName}' is not defined`);
    return reg.reject ? { process: reg.process, lane, reject: reg.reject } : { process: reg.process, lane };
  }
}
