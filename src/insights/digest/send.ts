import type { Deps } from '../../deps.js';
import {
  type DeliverDeps,
  type DigestMachinery,
  type DigestOutcome,
  type DigestRequest,
  describeSchedule,
  digestAnswer,
  digestPeriod,
  type Subscription,
} from '../../visitors/index.js';
import { type LoadDeps, loadFeedback, loadRangeQuestions, loadStrugglingSearches } from '../load.js';
import { MAX_ROWS } from '../rows.js';
import { fixesMessage, pickFixes } from './fixes.js';
import { INSIGHTS_DIGEST } from './kind.js';

// The insights digest's work: `/insights digest …` (shown, ended or set, like `/visitors digest`) and each
// occurrence of a subscription's scheduler (the week's three fixes, posted in the channel). The visitors' digest
// machinery (posting, schedulers, subscriptions) comes from the composition (`src/app/app.ts`' `WORK`).

type DigestDeps = LoadDeps & DeliverDeps;

/** Reads the week the scheduled instant `dueAt` closes and posts its three fixes. */
export async function sendInsightsDigest(
  deps: DigestDeps,
  digests: DigestMachinery,
  subscription: Subscription,
  dueAt: number,
): Promise<DigestOutcome> {
  const { channel, project, schedule } = subscription;
  const period = digestPeriod(schedule, dueAt);
  const fields = { channel, cadence: schedule.cadence, from: period.from, to: period.to };
  const query = { from: period.from, to: period.to, ...(period.tz && { tz: period.tz }), limit: MAX_ROWS, offset: 0 };
  const [feedback, searches, questions] = await Promise.all([
    loadFeedback(deps, project, query),
    loadStrugglingSearches(deps, project, query, MAX_ROWS),
    loadRangeQuestions(deps, project, query),
  ]);
  if (!feedback.ok || !searches.ok || !questions.ok) {
    deps.log.warn('insights.digest_failed', { ...fields, reason: 'service' });
    return 'failed';
  }
  const fixes = pickFixes(feedback.value, searches.value, questions.value);
  const message = fixesMessage(fixes, { project, period, scheduleText: describeSchedule(schedule) });
  const outcome = await digests.deliverDigest(deps, INSIGHTS_DIGEST, { subscription, period, message });
  if (outcome === 'posted') deps.log.info('insights.digest_posted', fields);
  return outcome;
}

/** One occurrence of an insights digest's scheduler. */
export const runScheduledInsightsDigest =
  (digests: DigestMachinery) =>
  async (deps: DigestDeps, request: { channel: string }): Promise<void> => {
    await digests.runScheduled(deps, INSIGHTS_DIGEST, request, (subscription, dueAt) =>
      sendInsightsDigest(deps, digests, subscription, dueAt),
    );
  };

/** `/insights digest …`: shown, ended or set, and confirmed privately. */
export const runInsightsDigest =
  (digests: DigestMachinery) => async (deps: DeliverDeps & Pick<Deps, 'replies'>, request: DigestRequest) => {
    const result = await digests.manageDigest(deps, request, INSIGHTS_DIGEST);
    await deps.replies.privately(request.audience, digestAnswer(result, deps.now(), INSIGHTS_DIGEST));
  };
