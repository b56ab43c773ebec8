/** The remoting core's public surface: codec, command model, codes, registry, endpoints, transports. */
export * from "./command.ts";
export * from "./connection.ts";
export * from "./connector.ts";
export * from "./custom-header.ts";
export * from "./endpoint.ts";
export * from "./errors.ts";
export * from "./frame.ts";
export * from "./in-process.ts";
export * from "./lane.ts";
export * from "./language-code.ts";
export * from "./processor-registry.ts";
export * from "./remoting-client.ts";
export * from "./remoting-server.ts";
export * from "./request-code.ts";
export * from "./response-code.ts";
export * from "./serialize-type.ts";
export * from "./server-resources.ts";
