import type { PageVisitors } from '../mintlify/schemas.js';

/** Pages whose unique visitors rose or fell most against the previous period. Pure. */

export interface Mover {
  path: string;
  current: number;
  previous: number;
  delta: number;
}

export interface PeriodRows {
  rows: PageVisitors[];
  /** False when the request cap stopped before the last page: a path missing here may simply be further down. */
  complete: boolean;
}

/**
 * Compares each page's total in both periods. A page absent from a complete list had 0 visitors there; a page
 * absent from a capped list is unknown and left out, so a page is never called "new" only because it ranked low.
 */
export function movers(current: PeriodRows, previous: PeriodRows, count = 3): { risers: Mover[]; fallers: Mover[] } {
  const now = new Map(current.rows.map((r) => [r.path, r.total]));
  const before = new Map(previous.rows.map((r) => [r.path, r.total]));
  const all: Mover[] = [];
  for (const path of new Set([...now.keys(), ...before.keys()])) {
    const a = now.get(path) ?? (current.complete ? 0 : undefined);
    const b = before.get(path) ?? (previous.complete ? 0 : undefined);
    if (a === undefined || b === undefined || a === b) continue;
    all.push({ path, current: a, previous: b, delta: a - b });
  }
  const byPath = (x: Mover, y: Mover) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0);
  const risers = all
    .filter((m) => m.delta > 0)
    .sort((x, y) => y.delta - x.delta || byPath(x, y))
    .slice(0, count);
  const fallers = all
    .filter((m) => m.delta < 0)
    .sort((x, y) => x.delta - y.delta || byPath(x, y))
    .slice(0, count);
  return { risers, fallers };
}
