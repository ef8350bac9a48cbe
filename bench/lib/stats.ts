import { cpus, totalmem } from 'node:os';

/** Nearest-rank percentile of `values` (0–100); NaN when empty. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/** Middle value (the mean of the two middle ones for an even count); NaN when empty. */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * The ack target (issue 30): ours' median p99 at most 1.2 × the bare app's, or 2 ms over it, whichever is looser. Below
 * a few ms a ratio measures the box, not the app: 2 shared cores resolve a p99 no finer than a scheduler slice or two.
 */
export function ackVerdict(oursP99s: number[], bareP99s: number[]) {
  const ours = median(oursP99s);
  const bare = median(bareP99s);
  const allowanceMs = Math.max(1.2 * bare, bare + 2);
  return { oursMs: round(ours), bareMs: round(bare), allowanceMs: round(allowanceMs), pass: ours <= allowanceMs };
}

export function mean(values: number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function machine() {
  const cpu = cpus();
  return {
    cpuModel: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    memoryMb: Math.round(totalmem() / 2 ** 20),
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Renders rows as a fixed-width text table. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  const line = (r: (string | number)[]) => r.map((c, i) => String(c).padEnd(widths[i] ?? 0)).join('  ');
  return [line(cells[0] ?? []), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return '—';
  if (Number.isInteger(n)) return String(n);
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2);
}
