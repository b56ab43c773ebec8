/**
 * Output helpers for the admin verbs: mqadmin-style tables (`#Header` columns, sized to their
 * contents), local timestamps as mqadmin prints them, Java version names, plain JSON from Maps and
 * Sets, and a progress bar for long work.
 */

export type Cell = string | number | boolean | null | undefined;

/**
 * Left-aligned columns separated by two spaces, headers as given (mqadmin prefixes them with '#').
 * Trailing spaces are trimmed from every line.
 */
export function table(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const text = rows.map((r) => headers.map((_, i) => cellText(r[i])));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(headers), ...text.map(line)].join("\n");
}

function cellText(c: Cell): string {
  return c === null || c === undefined ? "" : String(c);
}

/** `key: value` lines with the keys padded to one width (brokerStatus, message details). */
export function keyValues(rows: readonly (readonly [string, Cell])[], separator = ": "): string {
  const width = Math.max(0, ...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}${separator}${cellText(v)}`.trimEnd()).join("\n");
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** Local time as `yyyy-MM-dd HH:mm:ss,SSS` (mqadmin's timeMillisToHumanString2); "" for 0. */
export function humanTime(ms: number): string {
  if (!(ms > 0)) return "";
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(
    d.getMinutes(),
  )}:${pad(d.getSeconds())},${pad(d.getMilliseconds(), 3)}`;
}

/**
 * The name of a wire version number (Java's MQVersion.Version ordinal). From V4_0_0_SNAPSHOT (212)
 * on, each x.y.z has a SNAPSHOT and a release entry, in order.
 */
export function versionDesc(version: number): string {
  const V4_0_0_SNAPSHOT = 212;
  if (!Number.isInteger(version) || version < V4_0_0_SNAPSHOT) return String(version);
  const n = version - V4_0_0_SNAPSHOT;
  const k = Math.floor(n / 2);
  const name = `V${4 + Math.floor(k / 100)}_${Math.floor(k / 10) % 10}_${k % 10}`;
  return n % 2 === 0 ? `${name}_SNAPSHOT` : name;
}

/**
 * Maps become objects, Sets arrays, byte arrays UTF-8 text: what JSON.stringify cannot show. An
 * object with `toJSON` (a consumed message, whose lazy fields are getters) is shown through it,
 * as JSON.stringify would.
 */
export function toPlain(v: unknown): unknown {
  if (v !== null && typeof v === "object" && !(v instanceof Uint8Array) && "toJSON" in v) {
    const toJSON = (v as { toJSON: unknown }).toJSON;
    if (typeof toJSON === "function") return toPlain(toJSON.call(v));
  }
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), toPlain(x)]));
  if (v instanceof Set) return [...v].map(toPlain);
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (Array.isArray(v)) return v.map(toPlain);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x)]));
  return v;
}

export interface Progress {
  /** Adds `n` finished units and redraws (at most every 100 ms). */
  tick(n?: number): void;
  /** Draws the final state and ends the line. */
  done(): void;
}

export const NO_PROGRESS: Progress = { tick() {}, done() {} };

/** One frame of the bar: `[#####.....]  50/100 msgs  50%  1234/s`. */
export function progressLine(
  done: number,
  total: number,
  unit: string,
  elapsedMs: number,
  width = 30,
): string {
  const ratio = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(ratio * width);
  const rate = elapsedMs > 0 ? Math.round((done * 1000) / elapsedMs) : 0;
  const count = `${String(done).padStart(String(total).length)}/${total} ${unit}`;
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${count} ${String(Math.floor(ratio * 100)).padStart(3)}% ${rate}/s`;
}

/** A bar redrawn in place with `\r` on a terminal stream. */
export function terminalProgress(
  write: (text: string) => void,
  total: number,
  unit: string,
  now: () => number = Date.now,
): Progress {
  const start = now();
  let done = 0;
  let drawnAt = 0;
  const draw = () => {
    drawnAt = now();
    write(`\r${progressLine(done, total, unit, drawnAt - start)}`);
  };
  return {
    tick(n = 1) {
      done += n;
      if (now() - drawnAt >= 100) draw();
    },
    done() {
      draw();
      write("\n");
    },
  };
}
