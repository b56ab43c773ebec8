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

/**
 * ali-ons producers re-emit their shared client's background errors (route polls every 30 s) as
 * 'error' events, and a client whose close() was cut short keeps polling after its test stopped
 * the server: with no listener the event is thrown into whatever test runs then. In tests, an
 * error nobody listens for is dropped instead; a test that cares attaches a listener.
 */
const MQProducer = require("ali-ons/lib/producer/mq_producer.js") as {
  prototype: { _error(err: Error): void; listenerCount(event: string): number };
};
const reemit = MQProducer.prototype._error;
MQProducer.prototype._error = function (this: (typeof MQProducer)["prototype"], err: Error) {
  if (this.listenerCount("error") > 0) reemit.call(this, err);
};
