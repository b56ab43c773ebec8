/**
 * The broker's JSON config files (spec §8.10): read leniently (fastjson writes integer map keys
 * unquoted, `{0:12}`), written atomically: temp file + fsync + rename, the previous version
 * kept as `<name>.bak`, which is read when the main file is missing, empty or unparsable.
 */
import { readFile } from "node:fs/promises";
import { atomicWriteFile } from "../../src/config/atomic-file.ts";

/** Quotes bare keys (`{0:1}` → `{"0":1}`) outside strings, then parses as JSON. */
export function parseLenientJson(text: string): unknown {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === "{" || c === ",") {
      const m = /^\s*(-?\d+)\s*:/.exec(text.slice(i + 1, i + 40));
      if (m) {
        out += `${c}"${m[1]}":`;
        i += 1 + m[0].length;
        continue;
      }
    }
    out += c;
    i++;
  }
  return JSON.parse(out);
}

async function tryRead(path: string): Promise<unknown> {
  try {
    const text = await readFile(path, "utf8");
    if (text.trim() === "") return undefined;
    return parseLenientJson(text);
  } catch {
    return undefined;
  }
}

/** The parsed content of `path`, else of `path.bak`, else undefined. */
export async function readJsonFile(path: string): Promise<unknown> {
  return (await tryRead(path)) ?? (await tryRead(`${path}.bak`));
}

/** The JSON text of a config file, tab-indented so that people can read it. */
export function renderJson(value: unknown): string {
  return JSON.stringify(value, null, "\t");
}

/** Replaces the file with `data` so that a crash at any moment leaves a readable file or `.bak`. */
export function writeJsonFile(path: string, data: string | Uint8Array): Promise<void> {
  return atomicWriteFile(path, data, { backup: true });
}
