import type { VisitorCounts } from '../mintlify/schemas.js';

/** How a number moved against the previous period, as the report shows it next to the number. */

const ONE_DECIMAL = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** `▲ 12.4 %`, `▼ 3.1 %`, `± 0.0 %`, `new` (nothing before), or `—` (nothing to compare). */
export function formatChange(current: number, previous: number | undefined): string {
  if (previous === undefined || !Number.isFinite(current) || !Number.isFinite(previous)) return '—';
  if (previous <= 0) return current > 0 ? 'new' : '—';
  const percent = ((current - previous) / previous) * 100;
  const shown = ONE_DECIMAL.format(Math.abs(percent));
  if (shown === '0.0') return '± 0.0 %';
  return `${percent > 0 ? '▲' : '▼'} ${shown} %`;
}

/** AI visitors as a percentage of all visitors, or undefined when there were none. */
export function aiShare(counts: VisitorCounts): number | undefined {
  return counts.total > 0 ? Math.min(100, Math.max(0, (counts.ai / counts.total) * 100)) : undefined;
}

/** The AI share's change in percentage points: `▲ 2.1 pts`, `▼ 0.4 pts`, `± 0.0 pts`, or `—`. */
export function formatShareChange(current: VisitorCounts, previous: VisitorCounts | undefined): string {
  const now = aiShare(current);
  const before = previous && aiShare(previous);
  if (now === undefined || before === undefined) return '—';
  const points = now - before;
  const shown = ONE_DECIMAL.format(Math.abs(points));
  if (shown === '0.0') return '± 0.0 pts';
  return `${points > 0 ? '▲' : '▼'} ${shown} pts`;
}

/** The four changes the report shows, or undefined when the previous period could not be fetched. */
export interface Changes {
  total: string;
  human: string;
  ai: string;
  aiShare: string;
}

export function changes(current: VisitorCounts, previous: VisitorCounts | undefined): Changes | undefined {
  if (!previous) return undefined;
  return {
    total: formatChange(current.total, previous.total),
    human: formatChange(current.human, previous.human),
    ai: formatChange(current.ai, previous.ai),
    aiShare: formatShareChange(current, previous),
  };
}
