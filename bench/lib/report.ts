/** Benchmark output: one aligned table per benchmark, figures beside their ceiling and the ratio. */
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

function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(2);
}
