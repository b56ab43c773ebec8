/**
 * The stored-message codec shared by store, broker and client: record layout and codec,
 * properties, message ids, host addresses, CRC32, Java String.hashCode, batch bodies.
 */
export * from "./batch.ts";
export * from "./crc32.ts";
export * from "./host-address.ts";
export * from "./java-hash.ts";
export * from "./java-number.ts";
export * from "./message-id.ts";
export * from "./properties.ts";
export * from "./record.ts";
export * from "./record-layout.ts";
export * from "./sys-flag.ts";
