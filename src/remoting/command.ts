/**
 * RemotingCommand: the logical frame of the RocketMQ remoting protocol (spec remoting §2).
 * Requests and responses share the model; flag bit 0 tells them apart, bit 1 marks oneway.
 */

import { setOwn } from "./own-property.ts";
import { SerializeType } from "./serialize-type.ts";

/** Flag bits (spec remoting §2.4). */
export const RemotingFlag = {
  RESPONSE: 0x1,
  ONEWAY: 0x2,
} as const;

export type ExtFields = Record<string, string>;

/** Sets an ext field safely: a peer may send any key, "__proto__" included. */
export function setExtField(fields: ExtFields, key: string, value: string): void {
  setOwn(fields, key, value);
}

export class RemotingCommand {
  code: number;
  language: string;
  version: number;
  opaque: number;
  flag: number;
  remark: string | null;
  extFields: ExtFields | null;
  body: Uint8Array | null;
  /** The wire form this command arrived in, or will leave in. */
  serializeType: SerializeType;

  constructor(init: {
    code: number;
    language?: string;
    version?: number;
    opaque?: number;
    flag?: number;
    remark?: string | null;
    extFields?: ExtFields | null;
    body?: Uint8Array | null;
    serializeType?: SerializeType;
  }) {
    this.code = init.code;
    this.language = init.language ?? "JAVA";
    this.version = init.version ?? 0;
    this.opaque = init.opaque ?? 0;
    this.flag = init.flag ?? 0;
    this.remark = init.remark ?? null;
    this.extFields = init.extFields ?? null;
    this.body = init.body ?? null;
    this.serializeType = init.serializeType ?? SerializeType.JSON;
  }

  get isResponse(): boolean {
    return (this.flag & RemotingFlag.RESPONSE) !== 0;
  }

  get isOneway(): boolean {
    return (this.flag & RemotingFlag.ONEWAY) !== 0;
  }

  /** One extension field, or undefined when absent. */
  ext(name: string): string | undefined {
    const value = this.extFields?.[name];
    return value ?? undefined;
  }

  /** A request with the given code; the endpoint stamps opaque, version and language when it sends. */
  static request(
    code: number,
    extFields: ExtFields | null = null,
    body: Uint8Array | null = null,
  ): RemotingCommand {
    return new RemotingCommand({ code, extFields, body });
  }

  /**
   * A response; the dispatcher copies the request's opaque and serialize type into it.
   * `extFields` of `{}` mirrors Java's response-header classes, which always write `"extFields":{}`.
   */
  static response(
    code: number,
    remark: string | null = null,
    extFields: ExtFields | null = null,
    body: Uint8Array | null = null,
  ): RemotingCommand {
    return new RemotingCommand({ code, remark, extFields, body, flag: RemotingFlag.RESPONSE });
  }
}
