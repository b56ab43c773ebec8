/**
 * A raw TCP client for hostile-input tests: writes any bytes, decodes what comes back, and
 * notes when the server closed the connection.
 */
import type { Socket } from "bun";
import { decodeFrame, FrameDecoder, type RemotingCommand } from "../../src/remoting/index.ts";

export interface RawClient extends AsyncDisposable {
  readonly socket: Socket<undefined>;
  /** Responses (and requests) received, in order. */
  readonly received: RemotingCommand[];
  /** Resolves when the server closes the connection. */
  readonly closed: Promise<void>;
  readonly isClosed: boolean;
  /** Writes all of `bytes`, waiting for `drain` when the kernel takes only part. */
  write(bytes: Uint8Array): Promise<void>;
  /** Resolves once `count` commands have been received. */
  receive(count: number): Promise<RemotingCommand[]>;
}

export async function rawClient(addr: string): Promise<RawClient> {
  const [hostname, port] = addr.split(":") as [string, string];
  const decoder = new FrameDecoder();
  const received: RemotingCommand[] = [];
  const closed = Promise.withResolvers<void>();
  let isClosed = false;
  let waiter: (() => void) | null = null;
  let drained: (() => void) | null = null;
  const onClosed = () => {
    isClosed = true;
    closed.resolve();
    waiter?.();
    drained?.();
  };
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data(_s, chunk) {
        for (const frame of decoder.push(chunk)) received.push(decodeFrame(frame));
        waiter?.();
      },
      drain() {
        drained?.();
      },
      close: onClosed,
      error: onClosed,
      end: onClosed,
    },
  });
  return {
    socket,
    received,
    closed: closed.promise,
    get isClosed() {
      return isClosed;
    },
    async write(bytes) {
      let rest = bytes;
      while (rest.length > 0 && !isClosed) {
        rest = rest.subarray(Math.max(0, socket.write(rest)));
        if (rest.length === 0) break;
        const { promise, resolve } = Promise.withResolvers<void>();
        drained = resolve;
        await promise;
        drained = null;
      }
    },
    async receive(count) {
      while (received.length < count) {
        if (isClosed) throw new Error(`closed after ${received.length} of ${count} commands`);
        const { promise, resolve } = Promise.withResolvers<void>();
        waiter = resolve;
        await promise;
        waiter = null;
      }
      return received.slice(0, count);
    },
    async [Symbol.asyncDispose]() {
      socket.terminate();
    },
  };
}
