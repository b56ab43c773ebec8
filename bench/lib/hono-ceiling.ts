/**
 * The ceiling of the gateway benchmark: Bun.serve with a trivial Hono app that reads the request
 * body and answers 200, on the gateway's produce path. Prints `PORT <n>` once listening.
 */
import { Hono } from "hono";

const app = new Hono();
app.post("/v1/topics/:topic/messages", async (c) => {
  await c.req.arrayBuffer();
  return c.body(null, 200);
});
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
console.log(`PORT ${server.port}`);
