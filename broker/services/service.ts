/**
 * What a broker service is: background work with a start and a stop, started after the store and
 * the metadata are loaded and stopped before the store shuts down (broker/index.ts lists them).
 */
export interface BrokerService {
  readonly name: string;
  start(): Promise<void>;
  /** Finishes the work under way and persists the service's progress. */
  stop(): Promise<void>;
  /** Keys the service adds to GET_BROKER_RUNTIME_INFO (spec broker §12). */
  runtimeInfo?(): Iterable<readonly [string, string]>;
}
