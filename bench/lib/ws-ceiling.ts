/**
 * The ceiling of the gateway's WS push benchmark: Bun.serve pushing pre-built 1 KiB `message`
 * frames under the gateway's credit protocol (subscribe / credit add credit, each frame spends one,
 * an ack frame is answered with a result frame), with no broker behind. Prints `PORT <n>`.
 */
import type { ServerWebSocket } from "bun";

const body = "x".repeat(1024);
let seq = 0;
const frame = () =>
  JSON.stringify({
    type: "message",
    subscription: "s1",
    message: {
      msgId: `ID${seq}`,
      topic: "BenchGatewayLease",
      queueOffset: seq++,
      body,
      bodyEncoding: "text",
      receiptHandle: `v1.${"h".repeat(120)}`,
      leaseExpiresAt: 0,
    },
  });

interface Data {
  credit: number;
}

function push(ws: ServerWebSocket<Data>): void {
  while (ws.data.credit > 0) {
    ws.data.credit--;
    ws.send(frame());
  }
}

const server = Bun.serve<Data>({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req, srv) {
    if (srv.upgrade(req, { data: { credit: 0 } })) return undefined;
    return new Response("websocket only", { status: 426 });
  },
  websocket: {
    message(ws, raw) {
      const f = JSON.parse(String(raw)) as {
        type: string;
        id?: number;
        credit?: number;
        receiptHandles?: string[];
      };
      if (f.type === "subscribe" || f.type === "credit") {
        ws.data.credit += f.credit ?? 0;
        push(ws);
      } else if (f.type === "ack") {
        ws.send(
          JSON.stringify({
            type: "result",
            id: f.id,
            op: "ack",
            results: f.receiptHandles?.map(() => ({ ok: true })),
          }),
        );
      }
    },
  },
});
console.log(`PORT ${server.port}`);
