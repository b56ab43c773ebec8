/**
 * LanguageCode (spec remoting §2.6): the JSON form carries the name, the ROCKETMQ form one byte.
 * An unknown name or byte decodes to UNKNOWN_LANGUAGE instead of failing, as Java yields null.
 */
export const LanguageCode = {
  JAVA: 0,
  CPP: 1,
  DOTNET: 2,
  PYTHON: 3,
  DELPHI: 4,
  ERLANG: 5,
  RUBY: 6,
  OTHER: 7,
  HTTP: 8,
  GO: 9,
  PHP: 10,
  OMS: 11,
  RUST: 12,
  NODE_JS: 13,
} as const;

export type LanguageName = keyof typeof LanguageCode;

/** What we keep for a language we cannot name; re-encoded as OTHER. */
export const UNKNOWN_LANGUAGE = "UNKNOWN";

const byCode = new Map<number, string>(Object.entries(LanguageCode).map(([name, code]) => [code, name]));

export function languageFromByte(code: number): string {
  return byCode.get(code) ?? UNKNOWN_LANGUAGE;
}

/** JSON senders may give the name or (fastjson accepts it) the numeric code. */
export function languageFromJson(value: unknown): string {
  if (value === undefined || value === null) return "JAVA";
  if (typeof value === "number") return languageFromByte(value);
  if (typeof value === "string" && value in LanguageCode) return value;
  return UNKNOWN_LANGUAGE;
}

export function languageToByte(name: string): number {
  return LanguageCode[name as LanguageName] ?? LanguageCode.OTHER;
}
