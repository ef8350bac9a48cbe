import type { Deps } from '../../deps.js';
import { Again } from '../../queue/engine.js';
import { classifySlackError } from '../../slack/errors.js';
import { budgetKey, holdRootUpdates, rootUpdateBudgets, takeForElapsed, takeForState } from '../../slack/tiers.js';
import type { JobRef } from '../../store/jobs.js';
import { rewriteRoot } from '../root-post.js';
import type { RefreshData } from './lane-data.js';
import { trackingIds } from './track.js';

/** Rewrites after a rival update, at most: each transition's own refresh covers what comes after it. */
const MAX_REWRITES = 3;

export type RefreshDeps = Pick<Deps, 'slack' | 'log' | 'now' | 'store' | 'projects' | 'jobWatchers' | 'config'>;

/** Root-message refreshes are this job's: at most one waits at a time, so a burst of changes costs one update. */
export const refreshId = ({ project, jobId }: JobRef) =>
  `refresh/${encodeURIComponent(project)}/${encodeURIComponent(jobId)}`;

/**
 * The `refreshes` lane's processor: rewrites a job's root message (its status line) from the stored record. Several
 * updaters can race and Slack keeps whichever update lands last, so after each update the record is read again and
 * the message rewritten if it changed meanwhile (`rev`): the last word is the latest state. Slack's 429 is waited
 * out (the same job, after Retry-After); a transient failure is thrown, for the lane's retries; a refusal for good
 * (message or channel gone) is logged and dropped.
 */
export async function refreshRoot(deps: RefreshDeps, data: RefreshData): Promise<Again | undefined> {
  const ref: JobRef = { project: data.project, jobId: data.jobId };
  let record = await deps.store.jobs.get(ref);
  const budgets = rootUpdateBudgets(deps.store, deps.config);
  try {
    for (let i = 0; record && i < MAX_REWRITES; i++) {
      // Within the workspace's Tier 3 budgets: a new state (a rewrite after a rival's change shows one) waits for
      // room, an elapsed time is dropped.
      const newState = data.stateChanged || i > 0;
      const key = budgetKey(data.workspace);
      const use = newState ? await takeForState(budgets, key) : await takeForElapsed(budgets, key);
      if (!use.ok) return newState ? new Again({ ...data, stateChanged: true }, use.resetInMs) : undefined;
      await rewriteRoot(deps, record).finally(use.spent);
      const latest = await deps.store.jobs.get(ref);
      if (!latest || latest.rev === record.rev) break;
      record = latest;
    }
  } catch (error) {
    const failure = classifySlackError(error);
    if (failure.kind === 'rate_limited') {
      // Every rewrite of the workspace waits too; a hold the store did not keep still leaves this one waiting.
      await holdRootUpdates(budgets, budgetKey(data.workspace), failure.retryAfterMs).catch(() => {});
      return new Again(data, failure.retryAfterMs);
    }
    if (failure.kind !== 'final') throw error;
    deps.log.warn('agent.root_refresh_failed', { job_id: ref.jobId, project: ref.project, slack_error: failure.code });
    return undefined;
  }
  // Other views of the job (App Home) follow its state, not the elapsed-time refreshes.
  if (record && data.stateChanged) await deps.jobWatchers?.changed(record);
  return undefined;
}

/**
 * Brings a job's root message up to date now, as part of the step that changed the job (it started, a follow-up
 * was accepted), so the person sees it at once; when Slack does not take it now (a 429, a 5xx), the `refreshes`
 * lane tries again until it lands.
 */
export async function refreshNow(deps: RefreshDeps & Pick<Deps, 'lanes' | 'workspace'>, ref: JobRef): Promise<void> {
  const data = { workspace: deps.workspace, project: ref.project, jobId: ref.jobId, stateChanged: true };
  const done = await refreshRoot(deps, data).then(
    (again) => again === undefined,
    (error: unknown) => {
      deps.log.warn('agent.root_refresh_failed', { job_id: ref.jobId, project: ref.project, error });
      return false;
    },
  );
  if (!done) await deps.lanes.refreshes.add(data, { id: trackingIds.refresh(data) });
}
