import { RemotingServer, tcpConnector } from "../../src/remoting/index.ts";
import { runRpcSuite, silent } from "./rpc.case.ts";

runRpcSuite("TCP", async (registry) => {
  const server = new RemotingServer({
    name: "tcp",
    listenPort: 0,
    bindAddress: "127.0.0.1",
    registry,
    log: silent,
  });
  await server.start();
  const connector = tcpConnector({ log: silent });
  return {
    serverRegistry: registry,
    server: server.endpoint,
    connect: (client) => connector.connect(`127.0.0.1:${server.port}`, client),
    close: () => server.stop(),
  };
});

for (const roundTrip of [false, true]) {
  runRpcSuite(roundTrip ? "in-process round trip" : "in-process objects", async (registry) => {
    const server = new RemotingServer({ name: "local", listenPort: 0, registry, log: silent });
    return {
      serverRegistry: registry,
      server: server.endpoint,
      connect: async (client) => server.acceptInProcess(client, { roundTrip }),
      close: () => server.stop(),
    };
  });
}
