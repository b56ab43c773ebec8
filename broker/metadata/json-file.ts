/**
 * The broker's JSON config files (spec §8.10): read leniently (fastjson writes integer map keys
 * unquoted, `{0:12}`), written atomically: temp file + fsync + rename, the previous version
 * kept as `<name>.bak`, which is read when the main file is missing, empty or unparsable.
 */
import { constants } from "node:fs";
import { copyFile, mkdir, open, readFile, rename } from "node:fs/promises";
import { dirname } from "node:path";

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

/** Writes `value` as JSON so that a crash at any moment leaves a readable file or `.bak`. */
export async function writeJsonFile(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp`;
  const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o644);
  try {
    await fh.writeFile(JSON.stringify(value, null, "\t"));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await copyFile(path, `${path}.bak`).catch(() => {});
  await rename(tmp, path);
  const dir = await open(dirname(path), "r");
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
