import type { Deps } from '../deps.js';
import { notice } from '../visitors/index.js';
import { exportInsightsCsv } from './export.js';
import type { LoadDeps } from './load.js';
import { commandOf, failureText, insightsCopy } from './messages.js';
import type { InsightsRequest } from './requests.js';
import { showInsights } from './show.js';

// /insights' work after a door's ack (`insights-work.ts`): read the service, answer privately. An unexpected throw is
// answered by the one error policy (src/app/dispatch.ts) with the task's `failed` words.

type TaskDeps = LoadDeps & Pick<Deps, 'replies'>;

/** A view (or the digest), privately. */
export async function runInsights(deps: TaskDeps, request: InsightsRequest): Promise<void> {
  await deps.replies.privately(request.audience, await showInsights(deps, request));
}

/** Next →: the next page replaces the one the button was on. */
export async function runInsightsPage(deps: TaskDeps, request: InsightsRequest): Promise<void> {
  const message = await showInsights(deps, request);
  const { responseUrl } = request.audience;
  if (!responseUrl || !(await deps.replies.replace(responseUrl, message)))
    await deps.replies.privately(request.audience, message);
}

/** Download CSV: every row of the range uploaded in the conversation; a failure is said privately. */
export async function runInsightsExport(deps: TaskDeps & Pick<Deps, 'slack'>, request: InsightsRequest): Promise<void> {
  const result = await exportInsightsCsv(deps, request);
  if (result.ok) return;
  const message =
    result.reason === 'upload_failed'
      ? notice(insightsCopy.uploadFailed(result.code))
      : failureText(result.failure, commandOf(request));
  await deps.replies.privately(request.audience, message);
}
