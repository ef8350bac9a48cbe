import type { Quota, QuotaKind } from '../deps.js';
import type { Budget } from '../store/budget.js';
import { keys } from '../store/keys.js';
import type { Store } from '../store/store.js';

/** Mintlify allows this many job creations, and as many follow-ups, per project per hour. */
export const HOURLY_LIMIT = 100;
const WINDOW_MS = 60 * 60 * 1000;

export function createQuota(store: Store): Quota {
  const budgets: Record<QuotaKind, Budget> = {
    create: store.budget({ name: keys.quota('create'), points: HOURLY_LIMIT, durationMs: WINDOW_MS }),
    follow_up: store.budget({ name: keys.quota('follow_up'), points: HOURLY_LIMIT, durationMs: WINDOW_MS }),
  };
  return {
    take: (project, kind) => budgets[kind].take(project),
    refund: (project, kind) => budgets[kind].refund(project),
    usage: (project, kind) => budgets[kind].peek(project),
  };
}
