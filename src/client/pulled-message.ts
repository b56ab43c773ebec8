/**
 * A message decoded from a pull or query body. The fixed-width fields are plain own properties;
 * the ones that cost string work (properties, tags, keys, msgId, offsetMsgId, bornHost, storeHost)
 * are getters computed on first read and cached, because a consumer draining a backlog rarely
 * reads them all and parsing them eagerly was about a third of its CPU per message.
 *
 * For users this behaves like ali-ons' Message, whose tags and keys are getters too: reading any
 * field works as on a plain object, and assigning one replaces it. `JSON.stringify` and
 * `toJSON()` give every field; object spread and `Object.keys` give the plain fields only.
 */
import {
  encodeOffsetMessageId,
  type HostAddress,
  KEY_SEPARATOR,
  MessageConst,
} from "../protocol/message/index.ts";
import type { MessageExt } from "./message.ts";
import { propertiesObject } from "./properties-object.ts";

/** A host as MessageExt shows it, and its object (whose offset-id prefix message-id.ts caches). */
export interface KnownHost {
  readonly host: HostAddress;
  readonly text: string;
}

const utf8Decoder = new TextDecoder();

/** Turns a getter into an own data property once assigned: the assigned value wins from then on. */
function shadow(target: object, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true });
}

export class PulledMessage implements MessageExt {
  /** Properties set before `properties` was first read (the pull loop's MIN/MAX_OFFSET, ...). */
  #pending: [string, string][] | undefined;
  #properties: Record<string, string> | undefined;
  #keys: string[] | undefined;
  #offsetMsgId: string | undefined;
  /** The encoded properties are `#src[#propsPos, #propsPos + #propsBytes)`. */
  readonly #src: Uint8Array;
  readonly #propsPos: number;
  readonly #propsBytes: number;
  readonly #storeHost: KnownHost;
  readonly #bornHost: KnownHost;

  constructor(
    public topic: string,
    public body: Uint8Array,
    public queueId: number,
    public queueOffset: number,
    public commitLogOffset: number,
    public brokerName: string,
    public bornTimestamp: number,
    public storeTimestamp: number,
    public reconsumeTimes: number,
    public flag: number,
    public sysFlag: number,
    public bodyCrc: number,
    public storeSize: number,
    src: Uint8Array,
    propsPos: number,
    propsBytes: number,
    storeHost: KnownHost,
    bornHost: KnownHost,
  ) {
    this.#src = src;
    this.#propsPos = propsPos;
    this.#propsBytes = propsBytes;
    this.#storeHost = storeHost;
    this.#bornHost = bornHost;
  }

  get properties(): Record<string, string> {
    if (this.#properties === undefined) {
      const p = propertiesObject(
        utf8Decoder.decode(this.#src.subarray(this.#propsPos, this.#propsPos + this.#propsBytes)),
      );
      if (this.#pending) for (const [name, value] of this.#pending) p[name] = value;
      this.#pending = undefined;
      this.#properties = p;
    }
    return this.#properties;
  }
  set properties(value: Record<string, string>) {
    shadow(this, "properties", value);
  }

  /**
   * Sets one property without parsing the others: the parse happens, with this value applied,
   * only if someone reads `properties` (or a field derived from it).
   */
  putProperty(name: string, value: string): void {
    if (this.#properties !== undefined) this.#properties[name] = value;
    else if (this.#pending === undefined) this.#pending = [[name, value]];
    else this.#pending.push([name, value]);
  }

  get tags(): string | undefined {
    return this.properties[MessageConst.TAGS];
  }
  set tags(value: string | undefined) {
    shadow(this, "tags", value);
  }

  get keys(): string[] {
    if (this.#keys === undefined) {
      const keys = this.properties[MessageConst.KEYS];
      this.#keys = keys === undefined ? [] : keys.split(KEY_SEPARATOR).filter((k) => k.length > 0);
    }
    return this.#keys;
  }
  set keys(value: string[]) {
    shadow(this, "keys", value);
  }

  /** UNIQ_KEY when present, otherwise the offset id (as the Java client exposes it). */
  get msgId(): string {
    return this.properties[MessageConst.UNIQ_KEY] ?? this.offsetMsgId;
  }
  set msgId(value: string) {
    shadow(this, "msgId", value);
  }

  get offsetMsgId(): string {
    this.#offsetMsgId ??= encodeOffsetMessageId(this.#storeHost.host, this.commitLogOffset);
    return this.#offsetMsgId;
  }
  set offsetMsgId(value: string) {
    shadow(this, "offsetMsgId", value);
  }

  get bornHost(): string {
    return this.#bornHost.text;
  }
  set bornHost(value: string) {
    shadow(this, "bornHost", value);
  }

  get storeHost(): string {
    return this.#storeHost.text;
  }
  set storeHost(value: string) {
    shadow(this, "storeHost", value);
  }

  /** Every field, in MessageExt's order, as a plain object. */
  toJSON(): MessageExt {
    return {
      topic: this.topic,
      body: this.body,
      tags: this.tags,
      keys: this.keys,
      msgId: this.msgId,
      offsetMsgId: this.offsetMsgId,
      properties: this.properties,
      queueId: this.queueId,
      queueOffset: this.queueOffset,
      commitLogOffset: this.commitLogOffset,
      brokerName: this.brokerName,
      bornTimestamp: this.bornTimestamp,
      bornHost: this.bornHost,
      storeTimestamp: this.storeTimestamp,
      storeHost: this.storeHost,
      reconsumeTimes: this.reconsumeTimes,
      flag: this.flag,
      sysFlag: this.sysFlag,
      bodyCrc: this.bodyCrc,
      storeSize: this.storeSize,
    };
  }
}

/** Sets a property on a consumed message, lazily when it is a PulledMessage. */
export function putProperty(msg: MessageExt, name: string, value: string): void {
  if (msg instanceof PulledMessage) msg.putProperty(name, value);
  else msg.properties[name] = value;
}
