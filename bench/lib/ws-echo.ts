/**
 * Issue 19's ceiling for WS push: a Bun WebSocket echo server (each message sent straight back),
 * no broker and no protocol behind it. Prints `PORT <n>`. lib/ws-ceiling.ts is the stricter
 * reference: a server pushing pre-built frames under the gateway's own credit protocol.
 */
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req, srv) {
    if (srv.upgrade(req)) return undefined;
    return new Response("websocket only", { status: 426 });
  },
  websocket: {
    message(ws, message) {
      ws.send(message);
    },
  },
});
console.log(`PORT ${server.port}`);
