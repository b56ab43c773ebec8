/**
 * A WebSocket client over node:net for tests that must stop reading as a slow client would (the
 * `ws` package under Bun is Bun's own WebSocket, whose socket cannot be paused).
 */
import { connect as netConnect, type Socket } from "node:net";

/** A WebSocket handshake over node:net, so the test can stop reading (pause) as a slow client would. */
export async function rawWebSocket(port: number): Promise<Socket> {
  const sock = netConnect({ host: "127.0.0.1", port });
  await new Promise<void>((resolve, reject) => {
    sock.once("connect", () => resolve());
    sock.once("error", reject);
  });
  sock.on("error", () => {});
  sock.write(
    "GET /v1/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
  );
  await new Promise<void>((resolve) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (text.includes("\r\n\r\n")) {
        sock.off("data", onData);
        resolve();
      }
    };
    sock.on("data", onData);
  });
  return sock;
}

/** One client text frame (FIN, opcode 1, masked with a zero key: masking is required, not secrecy). */
export function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  if (payload.length >= 126) throw new Error("short frames only");
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
}
