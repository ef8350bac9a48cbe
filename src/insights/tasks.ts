import type { Deps } from '../deps.js';
import type { Audience } from '../slack/reply.js';
import { notice } from '../visitors/index.js';
import { commandOf } from './blocks.js';
import { exportInsightsCsv } from './export.js';
import type { LoadDeps } from './load.js';
import { errorText, failureText, insightsCopy } from './messages.js';
import type { InsightsRequest } from './requests.js';
import { showInsights } from './show.js';

// /insights' work after a door's ack (registered with its lane in src/tasks.ts): read the service, answer privately.

type TaskDeps = LoadDeps & Pick<Deps, 'replies'>;

/** A view (or the digest), privately. */
export async function runInsights(deps: TaskDeps, request: InsightsRequest): Promise<void> {
  await guarded(deps, request.audience, async () => {
    await deps.replies.privately(request.audience, await showInsights(deps, request));
  });
}

/** Next →: the next page replaces the one the button was on. */
export async function runInsightsPage(deps: TaskDeps, request: InsightsRequest): Promise<void> {
  await guarded(deps, request.audience, async () => {
    const message = await showInsights(deps, request);
    const { responseUrl } = request.audience;
    if (!responseUrl || !(await deps.replies.replace(responseUrl, message)))
      await deps.replies.privately(request.audience, message);
  });
}

/** Download CSV: every row of the range uploaded in the conversation; a failure is said privately. */
export async function runInsightsExport(deps: TaskDeps & Pick<Deps, 'slack'>, request: InsightsRequest): Promise<void> {
  await guarded(deps, request.audience, async () => {
    const result = await exportInsightsCsv(deps, request);
    if (result.ok) return;
    const message =
      result.reason === 'upload_failed'
        ? notice(insightsCopy.uploadFailed(result.code))
        : failureText(result.failure, commandOf(request));
    await deps.replies.privately(request.audience, message);
  });
}

/** What the person hears when the work cannot be handed on or run: their command to run again. */
export function insightsUnavailable(deps: Pick<Deps, 'replies'>, request: InsightsRequest): Promise<void> {
  return deps.replies.privately(request.audience, errorText.unavailable(commandOf(request)));
}

async function guarded(deps: TaskDeps, audience: Audience, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    deps.log.error('insights.task_failed', { error });
    await deps.replies.privately(audience, { text: errorText.taskFailed });
  }
}
