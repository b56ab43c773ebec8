/** A logger that prints nothing, for tests. */
import pino from "pino";

export const silent = pino({ level: "silent" });
