import type { Config } from '../config.js';
import type { Budget } from '../store/budget.js';
import { keys } from '../store/keys.js';
import type { Store } from '../store/store.js';
import type { WorkspaceRef } from '../workspace.js';

/** Slack's Tier 3 (chat.update, conversations.replies…): about 50 calls a minute per method per workspace. */
export const TIER_3_PER_MINUTE = 50;

/**
 * The app's budgets for rewriting root messages (`chat.update`, Tier 3), per workspace. They count fixed windows
 * while Slack counts a sliding minute, where two windows' uses can meet: half the tier is never over it. Elapsed-time
 * refreshes get part of it and are dropped when it is spent, so updates that show a new state (and the outcome's)
 * always have room.
 */
export function rootUpdateBudgets(store: Pick<Store, 'budget'>, config: Pick<Config, 'slackRateWindowMs'>) {
  const durationMs = config.slackRateWindowMs;
  const all = TIER_3_PER_MINUTE / 2;
  return {
    all: store.budget({ name: keys.slackBudget('chat.update'), points: all, durationMs }),
    elapsed: store.budget({ name: keys.slackBudget('chat.update.elapsed'), points: (all * 3) / 5, durationMs }),
  } satisfies Record<string, Budget>;
}

/** The budgets' key: the workspace (every key of a workspace's store is its own already when the app serves many). */
export const budgetKey = (workspace: WorkspaceRef) => workspace.teamId || 'workspace';
