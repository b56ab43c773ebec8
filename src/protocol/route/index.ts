/** RocketMQ route and registration bodies shared by the NameServer, the broker and the clients. */
export * from "./bodies.ts";
export * from "./data-version.ts";
export * from "./perm.ts";
export * from "./register-broker-body.ts";
export * from "./topic-config.ts";
export * from "./topic-route-data.ts";
