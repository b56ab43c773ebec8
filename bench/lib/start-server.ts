/**
 * `rocketbun start` in a child process for benchmarks: the same launcher the integration tests use
 * (free loopback ports, temp home, broker.conf keys, ready at the broker's boot line, RSS readings).
 */
export {
  type StartedRocketbun as StartedServer,
  startRocketbun as startServer,
} from "../../test/support/rocketbun-child.ts";
