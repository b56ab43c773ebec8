/**
 * A closed-loop HTTP/1.1 load client over Bun.connect: `connections` keep-alive sockets, each
 * sending one request and waiting for its whole response before the next. Raw sockets rather than
 * fetch, so the connection count is exact and the client costs little beside the server measured.
 * Responses are framed by Content-Length (what Bun.serve sends for these small answers).
 */
import type { Socket } from "bun";

export interface HttpLoadResult {
  /** Completed requests per second. */
  rate: number;
  /** Responses whose status was not `expectStatus`. */
  unexpected: number;
  /** The first unexpected status line, for the report. */
  firstUnexpected?: string;
  /** Responses received in all, warm-up included (for CPU per request over the whole run). */
  total: number;
}

const HEADER_END = Buffer.from("\r\n\r\n");

/** The bytes of one POST request with a body. */
export function postRequest(host: string, path: string, contentType: string, body: Uint8Array): Uint8Array {
  const head = `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

interface Conn {
  buf: Buffer;
  onResponse: (status: number, line: string) => void;
  /** The unwritten rest of a request (Socket.write may take part of it), sent on drain. */
  pending: Uint8Array | null;
}

function writeAll(s: Socket<Conn>, bytes: Uint8Array): void {
  const n = s.write(bytes);
  s.data.pending = n < bytes.length ? bytes.subarray(Math.max(n, 0)) : null;
}

/** Parses as many whole responses as `c.buf` holds. */
function drain(c: Conn): void {
  for (;;) {
    const end = c.buf.indexOf(HEADER_END);
    if (end < 0) return;
    const head = c.buf.subarray(0, end).toString("latin1");
    const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    const length = m ? Number(m[1]) : 0;
    const total = end + 4 + length;
    if (c.buf.length < total) return;
    const line = head.slice(0, head.indexOf("\r\n"));
    c.buf = c.buf.subarray(total);
    c.onResponse(Number(line.split(" ")[1]), line);
  }
}

/** One keep-alive connection whose responses are parsed by `drain` into `conn.onResponse`. */
async function openConnection(port: number): Promise<{ conn: Conn; socket: Socket<Conn> }> {
  const conn: Conn = { buf: Buffer.alloc(0), onResponse: () => {}, pending: null };
  const socket = await Bun.connect<Conn>({
    hostname: "127.0.0.1",
    port,
    data: conn,
    socket: {
      data(s, chunk) {
        s.data.buf = s.data.buf.length === 0 ? Buffer.from(chunk) : Buffer.concat([s.data.buf, chunk]);
        drain(s.data);
      },
      drain(s) {
        if (s.data.pending) writeAll(s, s.data.pending);
      },
      error(_s, err) {
        throw err;
      },
    },
  });
  return { conn, socket };
}

/**
 * Runs `connections` loops for `durationMs` (after a warm-up of a quarter of it, at most 500 ms)
 * and returns completed requests per second.
 */
export async function httpLoad(
  port: number,
  request: Uint8Array,
  connections: number,
  durationMs: number,
  expectStatus: number,
): Promise<HttpLoadResult> {
  let counting = false;
  let done = 0;
  let total = 0;
  let unexpected = 0;
  let firstUnexpected: string | undefined;
  let stopAt = Number.POSITIVE_INFINITY;
  const sockets: Socket<Conn>[] = [];
  let finished = 0;
  let allFinished: () => void = () => {};
  const finishedAll = new Promise<void>((r) => {
    allFinished = r;
  });
  for (let i = 0; i < connections; i++) {
    const { conn, socket } = await openConnection(port);
    conn.onResponse = (status, line) => {
      total++;
      if (counting) {
        done++;
        if (status !== expectStatus) {
          unexpected++;
          firstUnexpected ??= line;
        }
      }
      if (performance.now() >= stopAt) {
        if (++finished === connections) allFinished();
        return;
      }
      writeAll(socket, request);
    };
    sockets.push(socket);
  }
  const warmMs = Math.min(500, durationMs / 4);
  stopAt = performance.now() + warmMs + durationMs;
  for (const s of sockets) writeAll(s, request);
  await Bun.sleep(warmMs);
  counting = true;
  const started = performance.now();
  await finishedAll;
  const ms = performance.now() - started;
  for (const s of sockets) s.end();
  return { rate: (done * 1000) / ms, unexpected, total, ...(firstUnexpected ? { firstUnexpected } : {}) };
}

export interface PacedLoadResult {
  /** Requests sent and answered while pacing. */
  sent: number;
  answered: number;
  unexpected: number;
}

/**
 * Open-loop load at `ratePerSec`: a 5 ms tick releases the tokens earned since the last, and each sends one request
 * (built by `request` at that moment) on an idle keep-alive connection. Tokens that find no idle
 * connection wait, up to `connections` of them; beyond that the rate is not being served and they
 * are dropped (sent < rate × duration shows it).
 */
export async function pacedLoad(
  port: number,
  request: () => Uint8Array,
  connections: number,
  ratePerSec: number,
  durationMs: number,
  expectStatus: number,
): Promise<PacedLoadResult> {
  let sent = 0;
  let answered = 0;
  let unexpected = 0;
  let tokens = 0;
  let pacing = true;
  const idle: Socket<Conn>[] = [];
  const sockets: Socket<Conn>[] = [];
  let outstanding = 0;
  let settled: () => void = () => {};
  const send = (s: Socket<Conn>) => {
    sent++;
    outstanding++;
    writeAll(s, request());
  };
  for (let i = 0; i < connections; i++) {
    const { conn, socket } = await openConnection(port);
    conn.onResponse = (status) => {
      answered++;
      outstanding--;
      if (status !== expectStatus) unexpected++;
      if (pacing && tokens >= 1) {
        tokens--;
        send(socket);
      } else idle.push(socket);
      if (!pacing && outstanding === 0) settled();
    };
    sockets.push(socket);
    idle.push(socket);
  }
  const tickMs = 5;
  let last = performance.now();
  const timer = setInterval(() => {
    // By the time elapsed, not per tick: a loaded event loop fires ticks late.
    const at = performance.now();
    tokens = Math.min(tokens + (ratePerSec * (at - last)) / 1000, connections);
    last = at;
    while (tokens >= 1 && idle.length > 0) {
      tokens--;
      send(idle.pop()!);
    }
  }, tickMs);
  await Bun.sleep(durationMs);
  clearInterval(timer);
  pacing = false;
  if (outstanding > 0) await new Promise<void>((r) => (settled = r));
  for (const s of sockets) s.end();
  return { sent, answered, unexpected };
}
