/** pino-roll ships no types; the part of its API RocketBun uses (src/log.ts). */
declare module "pino-roll" {
  import type { DestinationStream } from "pino";

  interface RollOptions {
    file: string;
    extension?: string;
    size?: string | number;
    frequency?: "daily" | "hourly" | number;
    mkdir?: boolean;
    limit?: { count?: number };
    /** Passed on to sonic-boom: write each line with a blocking write(2). */
    sync?: boolean;
  }
  export default function roll(options: RollOptions): Promise<DestinationStream>;
}
