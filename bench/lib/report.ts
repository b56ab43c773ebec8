/**
 * Benchmark output: one aligned table per benchmark, figures beside their ceiling and the ratio;
 * and, while a benchmark runs, one progress line per measure or round, so a run of minutes is not
 * silent until its table.
 */
export interface Row {
  name: string;
  value: number;
  unit: string;
  ceiling?: number;
  /** Overrides value/ceiling: for paired measures, the median of the per-round ratios. */
  ratio?: number;
  target?: number;
}

export function printTable(title: string, rows: Row[]): void {
  console.log(`\n## ${title}`);
  console.log(
    `${"measure".padEnd(48)} ${"value".padStart(12)} ${"ceiling".padStart(12)} ${"ratio".padStart(7)}  target`,
  );
  for (const row of rows) {
    const ratio = row.ratio ?? (row.ceiling ? row.value / row.ceiling : undefined);
    const verdict =
      ratio !== undefined && row.target !== undefined ? (ratio >= row.target ? "met" : "MISSED") : "";
    console.log(
      `${row.name.padEnd(48)} ${fmt(row.value).padStart(12)} ${(row.ceiling ? fmt(row.ceiling) : "").padStart(12)} ${(
        ratio !== undefined ? ratio.toFixed(2) : ""
      ).padStart(7)}  ${row.target !== undefined ? `≥${row.target} ${verdict}` : ""}  ${row.unit}`,
    );
  }
}

/** One finished measure while a benchmark runs. */
export interface Progress {
  /** The benchmark, e.g. "broker". */
  bench: string;
  /** 1-based: this measure or round, of `rounds`. */
  round: number;
  rounds: number;
  /** What was measured, as its table row names it. */
  name: string;
  value: number;
  unit: string;
  /** The ceiling measured beside it, when there is one: the line shows the ratio too. */
  ceiling?: number;
  /** More of the same moment, e.g. `consumed 1,200/1,300, RSS 61.0 MiB`. */
  note?: string;
}

/** `  broker 3/8: sends, 128 in flight 41,234 msgs/s (0.52 of 79,100)` */
export function formatProgress(p: Progress): string {
  const ratio = p.ceiling ? ` (${(p.value / p.ceiling).toFixed(2)} of ${fmt(p.ceiling)})` : "";
  const note = p.note ? `; ${p.note}` : "";
  return `  ${p.bench} ${p.round}/${p.rounds}: ${p.name} ${fmt(p.value)} ${p.unit}${ratio}${note}`;
}

export function printProgress(p: Progress): void {
  console.log(formatProgress(p));
}

/**
 * For a benchmark whose measures run one after another: numbers them 1..`rounds` as they finish
 * and prints each. Returns the value, so a measure can be reported where it is taken.
 */
export function progressSteps(
  bench: string,
  rounds: number,
): (name: string, value: number, unit: string, ceiling?: number) => number {
  let round = 0;
  return (name, value, unit, ceiling) => {
    round++;
    printProgress({ bench, round, rounds, name, value, unit, ...(ceiling === undefined ? {} : { ceiling }) });
    return value;
  };
}

export function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(2);
}
