/**
 * ConfigError: every problem found while reading configuration, each naming where it came from
 * (file and line, environment variable or command line), the key and what is wrong.
 */

/** One problem with one key (or with the file as a whole when `key` is absent). */
export interface ConfigProblem {
  /** Where the value came from: `broker.conf:7`, `environment variable NAMESRV_ADDR`, `command line`. */
  readonly origin?: string;
  readonly key?: string;
  /** What is wrong, e.g. `"abc" is not an int`. */
  readonly message: string;
}

export function formatProblem(p: ConfigProblem): string {
  const where = p.origin === undefined ? "" : `${p.origin}: `;
  const key = p.key === undefined ? "" : `${p.key}: `;
  return `${where}${key}${p.message}`;
}

/** Thrown for any configuration problem; the message lists every problem, one per line. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[], options?: ErrorOptions) {
    super(problems.map(formatProblem).join("\n"), options);
    this.problems = problems;
  }
}
