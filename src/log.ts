/**
 * The pino root logger and per-component children.
 * Level comes from ROCKETBUN_LOG_LEVEL (read once here); tests are silent unless they ask.
 */
import pino, { type Logger } from "pino";

export type { Logger };

const LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

/** An unknown level in the environment must not crash an import; config validation reports it. */
function defaultLevel(): string {
  const fromEnv = process.env.ROCKETBUN_LOG_LEVEL;
  if (fromEnv && LEVELS.has(fromEnv)) return fromEnv;
  return process.env.NODE_ENV === "test" ? "silent" : "info";
}

export const rootLogger: Logger = pino({
  level: defaultLevel(),
  base: { pid: process.pid },
  timestamp: pino.stdTimeFunctions.isoTime,
});

/** A child logger for one component, e.g. `logger("remoting")`. */
export function logger(component: string, bindings: Record<string, unknown> = {}): Logger {
  return rootLogger.child({ component, ...bindings });
}

export function setLogLevel(level: string): void {
  rootLogger.level = level;
}
