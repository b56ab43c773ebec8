import { expect, test } from "bun:test";
import * as fsPromises from "node:fs/promises";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AtomicWriteFs, atomicWriteFile } from "../../src/config/atomic-file.ts";

async function tempDir() {
  const path = await mkdtemp(join(tmpdir(), "rocketbun-atomic-"));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

const emfile = () => Object.assign(new Error("EMFILE: too many open files"), { code: "EMFILE" });

/** The real calls, except that writing the temp file stops halfway with EMFILE. */
const failingHalfway: AtomicWriteFs = {
  ...fsPromises,
  open: (async (...args: Parameters<typeof fsPromises.open>) => {
    const fh = await fsPromises.open(...args);
    const writeFile = async (data: string | Uint8Array) => {
      const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
      await fh.write(bytes.subarray(0, bytes.length / 2));
      throw emfile();
    };
    return new Proxy(fh, {
      get: (target, key) => {
        if (key === "writeFile") return writeFile;
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }) as typeof fsPromises.open,
};

test("a write that fails halfway through leaves the old file byte-identical and no temp file behind", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "topics.json");
  await writeFile(path, '{"old":true}');
  const error = await atomicWriteFile(path, '{"new":"a much longer body than before"}', {
    fs: failingHalfway,
  }).catch((e: unknown) => e);
  expect((error as { code?: string }).code).toBe("EMFILE");
  expect(await readFile(path, "utf8")).toBe('{"old":true}');
  expect(await readdir(dir.path)).toEqual(["topics.json"]);
});

test("a failed rename leaves the old file and removes the temp file", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "kvConfig.json");
  await writeFile(path, "old");
  const fs: AtomicWriteFs = {
    ...fsPromises,
    rename: async () => {
      throw emfile();
    },
  };
  await expect(atomicWriteFile(path, "new", { fs })).rejects.toThrow("EMFILE");
  expect(await readFile(path, "utf8")).toBe("old");
  expect(await readdir(dir.path)).toEqual(["kvConfig.json"]);
});

test("a write replaces the content, creates missing directories and keeps the previous version as .bak", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "config", "consumerOffset.json");
  await atomicWriteFile(path, "first", { backup: true });
  await atomicWriteFile(path, "second", { backup: true });
  expect(await readFile(path, "utf8")).toBe("second");
  expect(await readFile(`${path}.bak`, "utf8")).toBe("first");
  expect((await readdir(join(dir.path, "config"))).sort()).toEqual([
    "consumerOffset.json",
    "consumerOffset.json.bak",
  ]);
});
