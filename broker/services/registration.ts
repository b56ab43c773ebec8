/**
 * Broker → NameServer registration (spec broker §11.1): REGISTER_BROKER to every NameServer in
 * parallel at start, every `registerNameServerPeriod` and on topic changes; UNREGISTER_BROKER at
 * shutdown. One NameServer being down never stops registration with the others.
 */
import type { Logger } from "pino";
import {
  RegisterBrokerRequestHeader,
  UnRegisterBrokerRequestHeader,
} from "../../src/protocol/headers/namesrv.ts";
import { bodyCrc } from "../../src/protocol/message/crc32.ts";
import { encodeRegisterBrokerBody } from "../../src/protocol/route/register-broker-body.ts";
import type { TopicConfigSerializeWrapper } from "../../src/protocol/route/topic-config.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import type { RemotingClient } from "../../src/remoting/remoting-client.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";

/** How long shutdown waits for each NameServer to take the unregistration. */
const UNREGISTER_TIMEOUT_MS = 3000;

export interface BrokerIdentity {
  clusterName: string;
  brokerName: string;
  brokerAddr: string;
  haServerAddr: string;
  brokerId: number;
}

export interface RegistrationOptions {
  identity: BrokerIdentity;
  namesrvAddrs: () => string[];
  topics: () => TopicConfigSerializeWrapper;
  client: RemotingClient;
  registerTimeoutMs: number;
  periodMs: number;
  log: Logger;
}

export interface RegistrationOutcome {
  namesrv: string;
  ok: boolean;
  error?: string;
}

export class BrokerRegistration {
  private timer: ReturnType<typeof setInterval> | null = null;
  private inFlight: Promise<RegistrationOutcome[]> | null = null;
  private again = false;

  constructor(private readonly options: RegistrationOptions) {}

  /** Registers now, and then every period (Java's first-after-10s delay is not needed: we register at start). */
  async start(): Promise<RegistrationOutcome[]> {
    const first = await this.registerAll();
    // Java: max(10 s, min(registerNameServerPeriod, 60 s)); tests may shorten it below 10 s.
    const period = Math.min(this.options.periodMs, 60_000);
    this.timer = setInterval(() => void this.registerAll(), period);
    this.timer.unref?.();
    return first;
  }

  /**
   * Registers with every NameServer in parallel. Calls made while one is running coalesce into a
   * single follow-up, so a burst of topic changes sends one registration, not one each.
   */
  registerAll(): Promise<RegistrationOutcome[]> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = this.registerOnce().finally(() => {
      this.inFlight = null;
      if (this.again) {
        this.again = false;
        void this.registerAll();
      }
    });
    return this.inFlight;
  }

  async unregisterAll(): Promise<void> {
    const { identity, client, namesrvAddrs, log } = this.options;
    const ext = UnRegisterBrokerRequestHeader.encode({
      brokerName: identity.brokerName,
      brokerAddr: identity.brokerAddr,
      clusterName: identity.clusterName,
      brokerId: identity.brokerId,
    });
    await Promise.all(
      namesrvAddrs().map((addr) =>
        client
          .invoke(
            addr,
            RemotingCommand.request(RequestCode.UNREGISTER_BROKER, { ...ext }),
            UNREGISTER_TIMEOUT_MS,
          )
          .then(
            (response) => {
              // A NameServer checking ACL refuses it without an admin signature: say so, as for registrations.
              if (response.code !== ResponseCode.SUCCESS) {
                log.warn(
                  { namesrv: addr, code: response.code, remark: response.remark },
                  "unregister broker refused",
                );
              }
            },
            (err: Error) => log.warn({ namesrv: addr, err: err.message }, "unregister broker failed"),
          ),
      ),
    );
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async registerOnce(): Promise<RegistrationOutcome[]> {
    const { identity, client, namesrvAddrs, topics, registerTimeoutMs, log } = this.options;
    const body = encodeRegisterBrokerBody({ topicConfigSerializeWrapper: topics(), filterServerList: [] });
    const ext = RegisterBrokerRequestHeader.encode({
      brokerName: identity.brokerName,
      brokerAddr: identity.brokerAddr,
      clusterName: identity.clusterName,
      haServerAddr: identity.haServerAddr,
      brokerId: identity.brokerId,
      compressed: false,
      bodyCrc32: bodyCrc(body),
    });
    return Promise.all(
      namesrvAddrs().map(async (namesrv): Promise<RegistrationOutcome> => {
        try {
          const response = await client.invoke(
            namesrv,
            RemotingCommand.request(RequestCode.REGISTER_BROKER, { ...ext }, body),
            registerTimeoutMs,
          );
          if (response.code !== ResponseCode.SUCCESS) {
            log.warn({ namesrv, code: response.code, remark: response.remark }, "register broker refused");
            return { namesrv, ok: false, error: response.remark ?? `code ${response.code}` };
          }
          return { namesrv, ok: true };
        } catch (err) {
          log.warn({ namesrv, err: (err as Error).message }, "register broker failed");
          return { namesrv, ok: false, error: (err as Error).message };
        }
      }),
    );
  }
}
