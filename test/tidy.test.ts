/**
 * Tree hygiene (style habit 2): source files stay small and the layering of design.md holds.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { Glob } from "bun";

const root = join(import.meta.dir, "..");
const HARD_CAP_LINES = 800;

function sources(pattern: string): string[] {
  return [...new Glob(pattern).scanSync({ cwd: root })].sort();
}

describe("tidy", () => {
  test(`no source file exceeds ${HARD_CAP_LINES} lines`, () => {
    const tooLong = sources("{src,broker,gateway}/**/*.ts")
      .map((file) => [file, readFileSync(join(root, file), "utf8").split("\n").length] as const)
      .filter(([, lines]) => lines > HARD_CAP_LINES);
    expect(tooLong).toEqual([]);
  });

  test("src/remoting imports nothing outside itself", () => {
    const offenders = sources("src/remoting/**/*.ts").filter((file) =>
      /from "\.\.\//.test(readFileSync(join(root, file), "utf8")),
    );
    expect(offenders).toEqual([]);
  });

  test("broker/ does not import the native client, and only the CLI imports broker/ or gateway/", () => {
    const brokerUsesClient = sources("broker/**/*.ts").filter((file) =>
      /from "[./]*src\/client\//.test(readFileSync(join(root, file), "utf8")),
    );
    const reachesUp = sources("src/**/*.ts")
      .filter((file) => !file.startsWith("src/cli/") && file !== "src/main.ts")
      .filter((file) => /from "(\.\.\/)+(broker|gateway)\//.test(readFileSync(join(root, file), "utf8")));
    expect({ brokerUsesClient, reachesUp }).toEqual({ brokerUsesClient: [], reachesUp: [] });
  });

  test("only src/config/load.ts reads process.env in library code", () => {
    const readers = sources("{src,broker,gateway}/**/*.ts")
      .filter((file) => !file.startsWith("src/cli/"))
      .filter((file) => readFileSync(join(root, file), "utf8").includes("process.env"))
      .map((file) => relative(root, join(root, file)));
    expect(readers.filter((file) => file !== "src/config/load.ts" && file !== "src/log.ts")).toEqual([]);
  });
});
