/**
 * Value checks shared by several sections: address lists, `deleteWhen` hours, delay-level lists.
 * Each returns what is wrong, or undefined when the value is fine.
 */

function portProblem(text: string): boolean {
  if (!/^\d{1,5}$/.test(text)) return true;
  const n = Number(text);
  return n < 1 || n > 65535;
}

/** `host:port`; an IPv6 host may be bracketed (`[::1]:9876`), as Java splits at the last colon. */
export function checkAddress(addr: string): string | undefined {
  const colon = addr.lastIndexOf(":");
  if (colon <= 0 || portProblem(addr.slice(colon + 1))) return `${JSON.stringify(addr)} is not host:port`;
  return undefined;
}

/** `host:port;host:port` as in namesrvAddr; empty means "none configured". */
export function checkAddressList(value: string): string | undefined {
  if (value === "") return undefined;
  for (const part of value.split(";")) {
    if (part === "") continue;
    if (checkAddress(part) !== undefined) {
      return `${JSON.stringify(value)} is not a list of host:port separated by ';' (bad part ${JSON.stringify(part)})`;
    }
  }
  return undefined;
}

/** Hours of the day separated by ';' (`04`, `04;16`), when expired files are deleted. */
export function checkHours(value: string): string | undefined {
  const ok = value.split(";").every((h) => /^\d{1,2}$/.test(h) && Number(h) <= 23);
  return ok ? undefined : `${JSON.stringify(value)} is not a list of hours 0-23 separated by ';'`;
}

/** Space-separated durations with a unit s, m, h or d (`1s 5s 10s 30s 1m`). */
export function checkDelayLevels(value: string): string | undefined {
  const ok = value.split(" ").every((t) => /^\d+[smhd]$/.test(t));
  return ok ? undefined : `${JSON.stringify(value)} is not a list of durations like "1s 5s 1m 2h"`;
}

/** Paths and names that have no meaningful empty value. */
export function checkNonEmpty(value: string): string | undefined {
  return value === "" ? "must not be empty" : undefined;
}
