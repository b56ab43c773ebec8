/**
 * What ali-ons needs to run against a local NameServer in tests and benchmarks: it insists on an
 * HTTP client for its address server even when given `nameSrv` (never used here), and it logs to
 * the console unless given a logger.
 */
const noop = () => {};

export const ALI_ONS_LOCAL = {
  httpclient: { request: () => Promise.reject(new Error("no address server in tests")) },
  logger: { info: noop, warn: noop, error: noop, debug: noop },
};
