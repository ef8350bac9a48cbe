import type { Config } from '../config/config.js';
import type { Budget, BudgetUse } from '../store/budget.js';
import { keys } from '../store/keys.js';
import type { Store } from '../store/store.js';
import type { WorkspaceRef } from '../workspace-ref.js';

/** Slack's Tier 3 (chat.update, conversations.replies…): about 50 calls a minute per method per workspace. */
export const TIER_3_PER_MINUTE = 50;
/** What root rewrites may use of it: the rest is room for the app's other `chat.update` calls (an export's note). */
const ROOT_UPDATES_PER_MINUTE = TIER_3_PER_MINUTE - 2;
/** Elapsed-time refreshes' own part: the others are kept for new states. */
const ELAPSED_PER_MINUTE = 15;

/**
 * The app's budgets for rewriting root messages (`chat.update`, Tier 3), per workspace, counted on sliding windows
 * as Slack counts (a burst passes at once), each use counted from when its call ended (`touch`). A new state (a final
 * one above all) takes from its own budget first, then from what elapsed-time refreshes left; an elapsed time takes
 * only its own part, none while new states have spent theirs, and is dropped when refused. So new states never wait
 * behind elapsed times, and together they stay under the tier. `elapsedAsked` paces the polls that ask for elapsed
 * times, so the lane is not handed ones it would drop.
 */
export function rootUpdateBudgets(store: Pick<Store, 'budget'>, config: Pick<Config, 'slackRateWindowMs'>) {
  const durationMs = config.slackRateWindowMs;
  const sliding = (name: string, points: number) =>
    store.budget({ name: keys.slackBudget(name), points, durationMs, sliding: true });
  return {
    states: sliding('root.states', ROOT_UPDATES_PER_MINUTE - ELAPSED_PER_MINUTE),
    elapsed: sliding('root.elapsed', ELAPSED_PER_MINUTE),
    elapsedAsked: sliding('root.elapsed.asked', ELAPSED_PER_MINUTE),
  } satisfies Record<string, Budget>;
}
type RootUpdateBudgets = ReturnType<typeof rootUpdateBudgets>;

/** A root rewrite's use of the budgets; `spent` after the call, whatever Slack answered. */
export interface RootUpdateUse {
  ok: boolean;
  /** Refused: when a use is free again. */
  resetInMs: number;
  /** Counts the use from now: Slack counted the call somewhere between the take and its answer. */
  spent(): Promise<void>;
}

const useOf = (budget: Budget, key: string, use: BudgetUse): RootUpdateUse => ({
  ok: use.ok,
  resetInMs: use.resetInMs,
  // The use already counts from its take: a store failure now must not fail an update Slack made.
  spent: async () => (use.id ? await budget.touch?.(key, use.id).catch(() => {}) : undefined),
});

/** A use for a new state: its own budget, else elapsed times' part; refused, when the sooner of the two frees one. */
export async function takeForState(budgets: RootUpdateBudgets, key: string): Promise<RootUpdateUse> {
  const own = await budgets.states.take(key);
  if (own.ok) return useOf(budgets.states, key, own);
  const lent = await budgets.elapsed.take(key);
  const use = lent.ok ? lent : { ...own, resetInMs: Math.min(own.resetInMs, lent.resetInMs) };
  return useOf(budgets.elapsed, key, use);
}

/**
 * A use for an elapsed time: its own part only, and none while new states are busy, with fewer than an elapsed
 * part's worth of their own uses left (they may be waiting for this part): a final state goes ahead of every elapsed
 * time. Checking only that new states have a use left lost the race for each use the sliding window freed to the
 * polls asking for elapsed times, and 60 finals then went at new states' own pace.
 */
export async function takeForElapsed(budgets: RootUpdateBudgets, key: string): Promise<RootUpdateUse> {
  const states = await budgets.states.peek(key);
  const idle = states.ok && states.left >= ELAPSED_PER_MINUTE;
  return useOf(budgets.elapsed, key, idle ? await budgets.elapsed.take(key) : { ...states, ok: false });
}

/** Slack answered 429: no root rewrite of the workspace is made before its Retry-After, from any instance. */
export async function holdRootUpdates(budgets: RootUpdateBudgets, key: string, ms: number): Promise<void> {
  await Promise.all([budgets.states.hold?.(key, ms), budgets.elapsed.hold?.(key, ms)]);
}

/** The budgets' key: the workspace (every key of a workspace's store is its own already when the app serves many). */
export const budgetKey = (workspace: WorkspaceRef) => workspace.teamId || 'workspace';
