/**
 * Lease-based consume as the HTTP routes and the WebSocket both use it: receive (POP) with messages
 * given signed receipt handles, and ack / nack / extend of a batch of handles with one result per
 * handle. An expired lease fails only its own item; nack and extend are one broker request per
 * handle; acks of one group and topic go as one batch ack per broker and share its answer. Handles
 * are verified before any broker request: one that does not verify refuses the whole request (400).
 */
import type { z } from "@hono/zod-openapi";
import { MQClientError } from "../src/client/errors.ts";
import { ResponseCode } from "../src/remoting/index.ts";
import type { LeaseRequest } from "./cluster.ts";
import type { GatewayDeps } from "./context.ts";
import { GatewayProblem, type ProblemInit, problemBody, toProblem } from "./errors.ts";
import { type BodyEncoding, encodeOutput, type MessageOutput } from "./message-codec.ts";
import { type LeaseHandle, leaseDeadline } from "./receipt-handle.ts";
import type { Problem } from "./schemas.ts";

export type SettleOp = "ack" | "nack" | "extend";

export type SettleResult =
  | { ok: true; receiptHandle?: string; leaseExpiresAt?: number }
  | { ok: false; problem: ProblemDocument };

type ProblemDocument = z.infer<typeof Problem>;

export type LeasedOutput = MessageOutput & {
  receiptHandle: string;
  leaseExpiresAt: number;
};

/** Where a result's problem document says it happened. */
export interface ProblemSite {
  instance: string;
  requestId: string;
}

export class Leases {
  constructor(private readonly deps: GatewayDeps) {}

  /** Messages under lease, each with a signed handle; [] when none came within waitMs. */
  async receive(r: LeaseRequest, encoding: BodyEncoding, transport: "http" | "ws"): Promise<LeasedOutput[]> {
    const { cluster, handles, metrics } = this.deps;
    let leased: Awaited<ReturnType<typeof cluster.receive>>;
    try {
      leased = await cluster.receive(r);
    } catch (err) {
      metrics.leaseOps.inc({ op: "receive", outcome: "error" });
      throw r.ordered ? orderedRefusal(err) : err;
    }
    metrics.leaseOps.inc({ op: "receive", outcome: "ok" });
    metrics.messagesOut.inc({ transport }, leased.length);
    return leased.map(({ message, brokerHandle }) => {
      // The handle fields added to the message's JSON object rather than both spread into a third.
      const out = encodeOutput(message, encoding) as LeasedOutput;
      out.receiptHandle = handles.sign({ group: r.group, topic: r.topic, brokerHandle });
      out.leaseExpiresAt = leaseDeadline(brokerHandle);
      return out;
    });
  }

  /**
   * Makes received messages visible again at once (nack 0): for messages that arrived after the
   * client went away, rather than waiting out their lease. Best effort: failures are logged.
   */
  async giveBack(messages: readonly LeasedOutput[], site: ProblemSite): Promise<void> {
    if (messages.length === 0) return;
    const handles: LeaseHandle[] = [];
    for (const m of messages) {
      const h = this.deps.handles.verify(m.receiptHandle);
      if (typeof h !== "string") handles.push(h);
    }
    const results = await this.settle("nack", handles, 0, site);
    const failed = results.filter((r) => !r.ok).length;
    if (failed > 0) this.deps.log.warn({ failed, site }, "giving back messages nobody will get failed");
  }

  /**
   * The content of every handle, or a 400 problem naming each one that does not verify or that
   * belongs to another group or topic than `scope` (the path's).
   */
  verifyAll(receiptHandles: readonly string[], scope?: { group: string; topic: string }): LeaseHandle[] {
    const errors: { index: number; detail: string }[] = [];
    const out: LeaseHandle[] = [];
    receiptHandles.forEach((text, index) => {
      const h = this.deps.handles.verify(text);
      if (typeof h === "string") errors.push({ index, detail: h });
      else if (scope && (h.group !== scope.group || h.topic !== scope.topic))
        errors.push({
          index,
          detail: `the receipt handle belongs to group ${h.group} and topic ${h.topic}, not to this path`,
        });
      else out.push(h);
    });
    if (errors.length > 0) {
      this.deps.metrics.leaseOps.inc({ op: "verify", outcome: "refused" }, errors.length);
      throw new GatewayProblem({
        status: 400,
        slug: "bad-receipt-handle",
        title: "Receipt handle refused",
        detail: errors.map((e) => `receiptHandles[${e.index}]: ${e.detail}`).join("; "),
        extra: { errors },
      });
    }
    return out;
  }

  /**
   * ack: done with the message. nack: visible again after `ms` (0: at once), delivered with
   * reconsumeTimes + 1. extend: invisible for `ms` from now, under the new handle returned.
   * A handle whose lease already ran out is refused per item (410): the message may be with
   * another consumer already, and extending it would lease it twice.
   */
  async settle(
    op: SettleOp,
    leases: readonly LeaseHandle[],
    ms: number,
    site: ProblemSite,
  ): Promise<SettleResult[]> {
    const { metrics } = this.deps;
    const results: SettleResult[] = new Array(leases.length);
    const live: number[] = [];
    const now = Date.now();
    leases.forEach((h, i) => {
      if (now <= leaseDeadline(h.brokerHandle)) live.push(i);
      else {
        metrics.leaseOps.inc({ op, outcome: "expired" });
        results[i] = { ok: false, problem: document(LEASE_EXPIRED, site) };
      }
    });
    if (op !== "ack") {
      await Promise.all(
        live.map(async (i) => {
          results[i] = await this.change(op, leases[i]!, ms, site);
        }),
      );
      return results;
    }
    // Acks of one group and topic go together (one batch ack per broker); they share the outcome.
    const byScope = new Map<string, number[]>();
    for (const i of live) {
      const key = `${leases[i]!.group}\n${leases[i]!.topic}`;
      const list = byScope.get(key);
      if (list) list.push(i);
      else byScope.set(key, [i]);
    }
    await Promise.all(
      [...byScope.values()].map(async (indexes) => {
        const { group, topic } = leases[indexes[0]!]!;
        const handles = indexes.map((i) => leases[i]!.brokerHandle);
        const outcome = await this.attempt(op, () => this.deps.cluster.ack(group, topic, handles));
        // One count for the group: a labelled inc per handle costs more than the rest of its ack.
        metrics.leaseOps.inc({ op, outcome: outcome === null ? "ok" : "error" }, indexes.length);
        const problem = outcome === null ? undefined : document(outcome, site);
        for (const i of indexes) results[i] = problem === undefined ? { ok: true } : { ok: false, problem };
      }),
    );
    return results;
  }

  /** nack / extend of one handle: CHANGE_MESSAGE_INVISIBLETIME. */
  private async change(op: SettleOp, h: LeaseHandle, ms: number, site: ProblemSite): Promise<SettleResult> {
    let fresh = "";
    const outcome = await this.attempt(op, async () => {
      fresh = await this.deps.cluster.changeInvisible(h.group, h.topic, h.brokerHandle, ms);
    });
    this.deps.metrics.leaseOps.inc({ op, outcome: outcome === null ? "ok" : "error" });
    if (outcome !== null) return { ok: false, problem: document(outcome, site) };
    if (op === "nack") return { ok: true };
    return {
      ok: true,
      receiptHandle: this.deps.handles.sign({ group: h.group, topic: h.topic, brokerHandle: fresh }),
      leaseExpiresAt: leaseDeadline(fresh),
    };
  }

  /** Runs a broker call; null when it succeeded, else its problem (logged when the broker failed). */
  private async attempt(op: SettleOp, run: () => Promise<void>): Promise<ProblemInit | null> {
    try {
      await run();
      return null;
    } catch (err) {
      const p = toProblem(err, this.deps.options.retryAfterSeconds);
      if (p.status >= 500) this.deps.log.warn({ err, op }, "lease operation failed");
      return p;
    }
  }
}

/** problemBody always writes type, title and status. */
function document(p: ProblemInit, site: ProblemSite): ProblemDocument {
  return problemBody(p, site.instance, site.requestId) as ProblemDocument;
}

const LEASE_EXPIRED: ProblemInit = {
  status: 410,
  slug: "lease-expired",
  title: "The lease has expired",
  detail: "the message's invisible time is over: it is (or soon will be) delivered again, with a new handle",
};

/** The broker refusing an ordered POP (ordered POP not built there): say so plainly. */
function orderedRefusal(err: unknown): unknown {
  if (!(err instanceof MQClientError) || err.code !== ResponseCode.SYSTEM_ERROR) return err;
  return new GatewayProblem({
    status: 501,
    slug: "ordered-receive-unsupported",
    title: "Ordered receive is not supported by the broker",
    detail: `the broker refused an ordered POP: ${err.remark}`,
    code: err.code,
    extra: { missingCapability: "ordered POP (POP_MESSAGE with order=true)" },
  });
}
