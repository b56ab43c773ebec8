/**
 * Sets `key` on a plain object as an own data property whatever the key: a peer may send any name,
 * and assigning "__proto__" would set the object's prototype instead (JSON.parse and
 * Object.fromEntries define it as plain data, which is what this keeps).
 */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}
