/**
 * ServerResources: what the remoting servers of one process share and must not exceed together:
 * client connections (descriptors) and the bytes buffered for clients. One instance is shared by
 * every server a process runs (`start`: NameServer, Broker and its VIP port), because descriptors
 * and memory are per process; a server given none makes its own.
 */
import type { Logger } from "pino";
import { BufferBudget } from "./buffer-budget.ts";
import { ConnectionGate } from "./connection-gate.ts";
import { DescriptorWatch } from "./descriptor-watch.ts";
import {
  bufferBytesMaxFor,
  connectionsMaxFor,
  readMemoryLimitBytes,
  readOpenFilesLimit,
} from "./host-limits.ts";

export interface ServerResourcesOptions {
  /** serverConnectionsMax; 0 or absent: derived from RLIMIT_NOFILE (host-limits.ts). */
  connectionsMax?: number;
  /** serverBufferBytesMax; 0 or absent: derived from the memory limit (host-limits.ts). */
  bufferBytesMax?: number;
  log: Logger;
  /** How often the descriptor watch probes (tests shorten it). */
  descriptorProbeIntervalMs?: number;
}

export class ServerResources {
  readonly connections: ConnectionGate;
  readonly budget: BufferBudget;
  readonly descriptors: DescriptorWatch;

  constructor(options: ServerResourcesOptions) {
    const openFilesLimit = readOpenFilesLimit();
    const connectionsMax = options.connectionsMax || connectionsMaxFor(openFilesLimit);
    const bufferBytesMax = options.bufferBytesMax || bufferBytesMaxFor(readMemoryLimitBytes());
    this.connections = new ConnectionGate(connectionsMax, options.log);
    this.budget = new BufferBudget(bufferBytesMax, options.log);
    this.descriptors = new DescriptorWatch({
      openFilesLimit,
      log: options.log,
      probeIntervalMs: options.descriptorProbeIntervalMs,
    });
    if (openFilesLimit !== undefined && connectionsMax > openFilesLimit) {
      options.log.warn(
        { serverConnectionsMax: connectionsMax, openFilesLimit },
        "serverConnectionsMax is above the open-files limit: descriptors may run out before connections do",
      );
    }
    // The effective values (0 in the configuration means "derived"); the CLI makes one per process.
    options.log.info(
      { serverConnectionsMax: connectionsMax, serverBufferBytesMax: bufferBytesMax, openFilesLimit },
      "server limits",
    );
  }

  stop(): void {
    this.connections.stop();
    this.budget.stop();
    this.descriptors.stop();
  }
}
