/**
 * `-p` / `-m` output: the effective configuration as `.properties` text, one section after another
 * (each headed by a `# name` comment), so that it can be fed back with `-c`.
 */
import type { PrintableSection } from "./load.ts";
import { escapeKey, escapeValue } from "./properties.ts";
import { formatValue } from "./schema.ts";

export interface PrintOptions {
  /** Only the keys RocketMQ marks important (BrokerStartup `-m`). */
  readonly importantOnly?: boolean;
}

export function formatConfig(sections: readonly PrintableSection[], options: PrintOptions = {}): string {
  const printed = new Map<string, string>();
  const blocks: string[] = [];
  for (const { section, values } of sections) {
    const lines: string[] = [];
    for (const [key, field] of Object.entries(section.fields)) {
      if (options.importantOnly && !field.important) continue;
      const value = formatValue(values[key]);
      if (field.secret && value !== "") {
        lines.push(`# ${escapeKey(key)}=(set, not printed)`);
        continue;
      }
      const line = `${escapeKey(key)}=${escapeValue(value)}`;
      const earlier = printed.get(key);
      // A file key reaches every section that declares it, so a second, different value could not be
      // fed back; show it as a comment instead (e.g. configBlackList of broker and NameServer in `start`).
      if (earlier !== undefined && earlier !== value)
        lines.push(`# ${line} (${section.name}; a file sets both)`);
      else lines.push(line);
      if (earlier === undefined) printed.set(key, value);
    }
    if (lines.length > 0) blocks.push(`# ${section.name}\n${lines.join("\n")}\n`);
  }
  return blocks.join("\n");
}
