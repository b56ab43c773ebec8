/**
 * The Gateway's keys (RocketBun's own): where the HTTP/WebSocket edge listens and which NameServers it
 * resolves routes from.
 */
import { checkAddressList } from "./checks.ts";
import { DEFAULT_NAMESRV_PORT } from "./namesrv-config.ts";
import { type ConfigOf, defineSection } from "./schema.ts";

export const DEFAULT_GATEWAY_PORT = 8080;
export const DEFAULT_GATEWAY_NAMESRV_ADDR = `127.0.0.1:${DEFAULT_NAMESRV_PORT}`;

export const gatewayConfig = defineSection("gatewayConfig", {
  gatewayPort: {
    type: "int",
    default: DEFAULT_GATEWAY_PORT,
    min: 0,
    max: 65535,
    important: true,
    doc: "HTTP port; env ROCKETBUN_GATEWAY_PORT, flags --port / --gateway-port",
  },
  gatewayBindAddress: { type: "string", default: "0.0.0.0", doc: "address the HTTP server binds" },
  namesrvAddr: {
    type: "string",
    default: DEFAULT_GATEWAY_NAMESRV_ADDR,
    important: true,
    check: checkAddressList,
    doc: "NameServers as host:port;host:port; env NAMESRV_ADDR, flag --namesrv",
  },
});

export type GatewayConfig = ConfigOf<typeof gatewayConfig>;
