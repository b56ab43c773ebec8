/**
 * Helpers for tests that play abusive clients against a server: raw sockets that hold
 * connections open or never read, hand-built frames, and a child process's CPU time and RSS.
 */
import { readFile } from "node:fs/promises";
import type { Socket } from "bun";

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU seconds the process `pid` has used. */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after the parenthesised command name: state is [0], utime [11], stime [12].
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** Resident set size of `pid` in MiB. */
export async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** Raw TCP connections, counting those the server closed. */
export interface RawConnections {
  readonly sockets: Socket<undefined>[];
  /** Connections closed (or reset) by the server so far. */
  readonly closed: number;
  /** Bytes received so far, over all connections. */
  readonly received: number;
  /** Writes all of `bytes`, waiting for `drain` whenever the kernel takes only part. */
  writeAll(socket: Socket<undefined>, bytes: Uint8Array): Promise<void>;
  closeAll(): void;
}

export interface RawOptions {
  /** Called with every chunk received (default: discarded). */
  onData?: (socket: Socket<undefined>, chunk: Uint8Array) => void;
}

/**
 * Opens `count` connections to `addr` one after another. A connect completes once the kernel
 * queued it, whether or not the server accepted it. With `pause`, a socket is paused on open and
 * never reads, so whatever the server sends piles up on the server's side.
 */
export async function openRaw(
  addr: string,
  count: number,
  options: RawOptions & { pause?: boolean } = {},
): Promise<RawConnections> {
  const [hostname, port] = addr.split(":") as [string, string];
  const sockets: Socket<undefined>[] = [];
  const drained = new Map<Socket<undefined>, () => void>();
  let closed = 0;
  let received = 0;
  for (let i = 0; i < count; i++) {
    let counted = false;
    const onClosed = (s: Socket<undefined>) => {
      drained.get(s)?.();
      if (counted) return;
      counted = true;
      closed++;
    };
    // A server over its connection cap resets new connections, sometimes before the connect
    // completes: that is a refused connection, counted as closed, not a failure of the abuser.
    const socket = await Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        open(s) {
          if (options.pause) s.pause();
        },
        data(s, chunk) {
          received += chunk.length;
          options.onData?.(s, chunk);
        },
        drain(s) {
          drained.get(s)?.();
        },
        close: onClosed,
        error: onClosed,
        end: onClosed,
      },
    }).catch(() => undefined);
    if (socket) sockets.push(socket);
    else closed++;
  }
  return {
    sockets,
    get closed() {
      return closed;
    },
    get received() {
      return received;
    },
    async writeAll(socket, bytes) {
      let rest = bytes;
      while (rest.length > 0) {
        const n = socket.write(rest);
        if (n < 0) throw new Error("socket closed while writing");
        rest = rest.subarray(n);
        if (rest.length === 0) break;
        const { promise, resolve } = Promise.withResolvers<void>();
        drained.set(socket, resolve);
        await promise;
        drained.delete(socket);
        if (socket.readyState <= 0) throw new Error("socket closed while writing");
      }
    },
    closeAll() {
      for (const s of sockets) s.terminate();
    },
  };
}

/** A frame with a hand-written JSON header text (and an optional body). */
export function jsonFrame(headerText: string, body: Uint8Array = new Uint8Array(0)): Uint8Array {
  const header = new TextEncoder().encode(headerText);
  const out = new Uint8Array(8 + header.length + body.length);
  const view = new DataView(out.buffer);
  view.setInt32(0, 4 + header.length + body.length);
  view.setInt32(4, header.length);
  out.set(header, 8);
  out.set(body, 8 + header.length);
  return out;
}
