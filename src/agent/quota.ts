import type { Budget, BudgetUse } from '../store/budget.js';
import { keys } from '../store/keys.js';
import type { Store } from '../store/store.js';

/** Mintlify allows this many job creations, and as many follow-ups, per project per hour. */
export const HOURLY_LIMIT = 100;
const WINDOW_MS = 60 * 60 * 1000;

export type QuotaKind = 'create' | 'follow_up';

/**
 * The project's hourly budgets for creations and follow-ups, counted in the store so replicas share them.
 * The window starts at the first use and lasts an hour, so refusals can say when it reopens.
 */
export interface Quota {
  take(project: string, kind: QuotaKind): Promise<BudgetUse>;
  /** Gives a use back when the service refused before doing the work (its own count did not move). */
  refund(project: string, kind: QuotaKind): Promise<void>;
  usage(project: string, kind: QuotaKind): Promise<BudgetUse>;
}

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
