/** RocketMQ's JSON: a fastjson-tolerant reader, typed field readers, and a writer in fastjson's two styles. */
export * from "./parse.ts";
export * from "./read.ts";
export * from "./write.ts";
