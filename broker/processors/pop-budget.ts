/**
 * POP and PEEK reads charged to the connection in the process's buffer budget
 * (`serverBufferBytesMax`), as pull reads are (pull.ts budgetedRead): each queue read takes what a
 * read may return — maxTransferBytesOnMessageInMemory, or one message of up to maxMessageSize —
 * keeps the bytes it actually returned until the reply is built, and gives the rest back at once.
 * The reply, once sent, is charged at its real size until the socket takes it.
 */
import type { Connection } from "../../src/remoting/connection.ts";
import { REJECT_REQUEST_REMARK, RemotingError } from "../../src/remoting/errors.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";

export class ReadCharge {
  private held = 0;
  /** A read was refused for want of budget: the batch may be short. */
  refused = false;
  readonly perRead: number;

  constructor(
    private readonly ctx: BrokerContext,
    private readonly conn: Connection,
  ) {
    this.perRead = Math.max(
      ctx.storeConfig.maxTransferBytesOnMessageInMemory,
      ctx.storeConfig.maxMessageSize,
    );
  }

  /** Takes one read's worth; false (and `refused`) when the budget has no room. */
  beforeRead(): boolean {
    if (!this.ctx.budget.take(this.conn, this.perRead, "working")) {
      this.refused = true;
      return false;
    }
    this.held += this.perRead;
    return true;
  }

  /** Keeps `bytes` of the read's charge, gives back the rest. */
  afterRead(bytes: number): void {
    const back = Math.max(0, this.perRead - bytes);
    this.ctx.budget.give(this.conn, back, "working");
    this.held -= back;
  }

  /** The reply is built: everything goes back. */
  release(): void {
    if (this.held > 0) this.ctx.budget.give(this.conn, this.held, "working");
    this.held = 0;
  }

  /** Throws SYSTEM_BUSY when nothing could be read for want of budget (the client backs off). */
  throwIfRefusedEmpty(found: number): void {
    if (this.refused && found === 0) {
      throw new RemotingError(
        ResponseCode.SYSTEM_BUSY,
        `${REJECT_REQUEST_REMARK}: pop reads fill the server buffer budget`,
      );
    }
  }
}
