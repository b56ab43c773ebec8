/**
 * The JSON header form (spec remoting §2.2). Writers emit Java's alphabetical key order with string
 * extFields; readers accept what real clients send: numbers/booleans in extFields (ali-ons, C++),
 * a trailing newline (C++), missing flag/version/language/opaque, a numeric language.
 */
import { type ExtFields, RemotingCommand, setExtField } from "./command.ts";
import { FrameError } from "./errors.ts";
import { languageFromJson } from "./language-code.ts";
import { SerializeType } from "./serialize-type.ts";

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: false });

export function encodeJsonHeader(cmd: RemotingCommand): Uint8Array {
  return utf8.encode(jsonHeaderText(cmd));
}

export function jsonHeaderText(cmd: RemotingCommand): string {
  // Key order as fastjson writes it; null members are left out (spec §2.2).
  const header: Record<string, unknown> = { code: cmd.code };
  if (cmd.extFields) header.extFields = cmd.extFields;
  header.flag = cmd.flag;
  header.language = cmd.language === "UNKNOWN" ? "OTHER" : cmd.language;
  header.opaque = cmd.opaque;
  if (cmd.remark !== null) header.remark = cmd.remark;
  header.serializeTypeCurrentRPC = "JSON";
  header.version = cmd.version;
  return JSON.stringify(header);
}

export function decodeJsonHeader(bytes: Uint8Array): RemotingCommand {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8Decoder.decode(bytes));
  } catch (err) {
    throw new FrameError(`bad JSON header: ${(err as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new FrameError("bad JSON header: not an object");
  }
  const h = parsed as Record<string, unknown>;
  return new RemotingCommand({
    code: intField(h, "code"),
    language: languageFromJson(h.language),
    version: intField(h, "version"),
    opaque: intField(h, "opaque"),
    flag: intField(h, "flag"),
    remark: typeof h.remark === "string" && h.remark !== "" ? h.remark : null,
    extFields: extFieldsOf(h.extFields),
    serializeType: SerializeType.JSON,
  });
}

function intField(h: Record<string, unknown>, key: string): number {
  const v = h[key];
  if (v === undefined || v === null) return 0;
  const n = typeof v === "string" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < -0x80000000 || n > 0x7fffffff) {
    throw new FrameError(`bad JSON header: ${key} is not an int32`);
  }
  return n;
}

function extFieldsOf(raw: unknown): ExtFields | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "object" || Array.isArray(raw))
    throw new FrameError("bad JSON header: extFields is not an object");
  const fields = raw as Record<string, unknown>;
  // Java and our own peers send strings only: keep the parsed object as it is (JSON.parse makes
  // even a "__proto__" key an own data property).
  let allStrings = true;
  for (const key in fields) {
    if (typeof fields[key] !== "string") {
      allStrings = false;
      break;
    }
  }
  if (allStrings) return fields as ExtFields;
  const out: ExtFields = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === null || value === undefined) continue;
    // fastjson fills HashMap<String,String> with the text of any scalar (spec §2.2).
    const text =
      typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
    setExtField(out, key, text);
  }
  return out;
}
