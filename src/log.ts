/**
 * The pino root logger and per-component children.
 *
 * Level: ROCKETBUN_LOG_LEVEL if set (read once here), else `warn`, so the library is quiet inside a
 * user's application; the CLI's servers raise it to `logLevel` (info by default). Tests are silent
 * unless they ask.
 *
 * Where lines go is decided by `configureLogOutput` (the CLI calls it once from the config):
 * JSON lines on stdout by default; human-readable, coloured lines when stdout is a terminal (or
 * `logFormat=pretty`); and a rotated JSON log file under `logDir` when one is given. The root
 * logger writes through one switchable destination, so loggers made at import time follow.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import pino, { type DestinationStream, type Logger } from "pino";

export type { Logger };

const LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);
export const LOG_FORMATS = ["auto", "pretty", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The file under `logDir`; rotated copies are `rocketbun.<n>.log`. */
export const LOG_FILE_BASENAME = "rocketbun";
const LOG_FILE_SIZE = "100m";
const LOG_FILES_KEPT = 10;

/** An unknown level in the environment must not crash an import; config validation reports it. */
function defaultLevel(): string {
  const fromEnv = process.env.ROCKETBUN_LOG_LEVEL;
  if (fromEnv && LEVELS.has(fromEnv)) return fromEnv;
  return process.env.NODE_ENV === "test" ? "silent" : "warn";
}

/** Writes each line to the current targets; swapped by `configureLogOutput`. */
const stdoutJson = pino.destination({ fd: 1, sync: true });

class SwitchableDestination implements DestinationStream {
  targets: DestinationStream[] = [stdoutJson];

  write(line: string): void {
    for (const t of this.targets) t.write(line);
  }

  /**
   * Synchronous on purpose: it runs just before a forced process.exit. The targets write each line
   * as it comes, so this only asks the file's stream to fsync what it wrote.
   */
  flush(done?: (err?: Error) => void): void {
    for (const t of this.targets) {
      try {
        (t as { flushSync?: () => void }).flushSync?.();
      } catch {
        // A stream not yet open has nothing buffered to lose.
      }
    }
    done?.();
  }
}

const destination = new SwitchableDestination();

export const rootLogger: Logger = pino(
  {
    level: defaultLevel(),
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  },
  destination,
);

/** A child logger for one component, e.g. `logger("remoting")`. */
export function logger(component: string, bindings: Record<string, unknown> = {}): Logger {
  return rootLogger.child({ component, ...bindings });
}

export function setLogLevel(level: string): void {
  rootLogger.level = level;
}

export interface LogOutput {
  format: LogFormat;
  /** A directory for a rotated JSON log file besides the console; "" for none. */
  dir: string;
  /** Whether stdout is a terminal (tests pass it; the CLI asks process.stdout). */
  isTty?: boolean;
}

/** `pretty` when asked, or on a terminal when `auto`; JSON otherwise (pipes, files, collectors). */
export function consoleFormatOf(format: LogFormat, isTty: boolean): "pretty" | "json" {
  return format === "auto" ? (isTty ? "pretty" : "json") : format;
}

/** One line per record: `HH:MM:ss.l LEVEL component/part: message {fields}`. */
async function prettyStream(): Promise<DestinationStream> {
  const { default: pretty } = await import("pino-pretty");
  return pretty({
    colorize: true,
    sync: true,
    singleLine: true,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname,component,part",
    messageFormat: (log, messageKey) => {
      const where = [log.component, log.part].filter((s) => typeof s === "string").join("/");
      const msg = String(log[messageKey] ?? "");
      return where === "" ? msg : `${where}: ${msg}`;
    },
  });
}

/**
 * Rotated by size, at most LOG_FILES_KEPT files. Written synchronously, as the console is: an
 * asynchronous write still in the thread pool is lost when the process exits or dies, and the line
 * lost would be the one saying why (a forced exit, a crash). Lines are rare at the default level
 * and a page-cache write costs microseconds.
 */
async function fileStream(dir: string): Promise<DestinationStream> {
  await mkdir(dir, { recursive: true });
  const { default: roll } = await import("pino-roll");
  return roll({
    file: join(dir, LOG_FILE_BASENAME),
    extension: ".log",
    size: LOG_FILE_SIZE,
    limit: { count: LOG_FILES_KEPT },
    sync: true,
  });
}

/** Points every logger at the console in `format` and, with a `dir`, at a rotated file too. */
export async function configureLogOutput(output: LogOutput): Promise<void> {
  const isTty = output.isTty ?? process.stdout.isTTY === true;
  const targets: DestinationStream[] = [
    consoleFormatOf(output.format, isTty) === "pretty" ? await prettyStream() : stdoutJson,
  ];
  if (output.dir !== "") targets.push(await fileStream(output.dir));
  destination.targets = targets;
}
