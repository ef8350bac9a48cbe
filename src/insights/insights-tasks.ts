import { unavailableAnswer } from '../agent/index.js';
import type { Deps } from '../deps.js';
import { defineTask, type Unavailable } from '../task.js';
import { DigestRequestSchema, digestUnavailable, getSubscription, ScheduledDigestSchema } from '../visitors/index.js';
import { INSIGHTS_DIGEST } from './digest/kind.js';
import { releaseDraft } from './draft-claim.js';
import { commandOf, errorText } from './messages.js';
import { type DraftStart, DraftStartSchema, type InsightsRequest, InsightsRequestSchema } from './requests.js';

// What /insights' doors hand on; `insights-work.ts` says what runs each. When the work is not done, the person hears
// their command to run again; when it threw, that something went wrong on our side.

const unavailable = (deps: Pick<Deps, 'replies'>, request: InsightsRequest, why: Unavailable) =>
  deps.replies.privately(
    request.audience,
    why === 'failed' ? { text: errorText.taskFailed } : errorText.unavailable(commandOf(request)),
  );

/** A Draft a fix start not done: its claim let go (unless it still waits for a worker), the instruction echoed. */
async function draftUnavailable(deps: Deps, start: DraftStart, why: Unavailable): Promise<void> {
  const { audience, instruction, evidence, owner, project } = start;
  if (why !== 'no_worker')
    // the store guard counts the failure; the claim lapses by its TTL.
    await releaseDraft(deps, { project, channel: audience.channel, evidence }, owner).catch(() => {});
  await deps.replies.privately(audience, unavailableAnswer(why, instruction));
}

const view = (kind: string, lane: 'reports' | 'exports') =>
  defineTask({ kind, lane, schema: InsightsRequestSchema, unavailable });

export const insightsTasks = {
  /** `/insights [view] [range]`: a view, or the digest of the three. */
  show: view('insights.show', 'reports'),
  /** Next →: the next page replaces the message the button was on. */
  turnPage: view('insights.turn_page', 'reports'),
  /** Download CSV: dozens of requests, on the exports lane. */
  export: view('insights.export', 'exports'),
  /** A submitted Draft a fix form: the job, started as `/agent` starts one, on the agent's lane. */
  draft: defineTask({ kind: 'insights.draft', lane: 'agent', schema: DraftStartSchema, unavailable: draftUnavailable }),
  /** `/insights digest …`: show, end or set this conversation's weekly digest (the visitors digest's machinery). */
  digest: defineTask({
    kind: 'insights.digest',
    lane: 'reports',
    schema: DigestRequestSchema,
    unavailable: digestUnavailable(errorText.taskFailed, { kind: INSIGHTS_DIGEST, read: getSubscription }),
  }),
  /** An occurrence of an insights digest's scheduler (`INSIGHTS_DIGEST.scheduledTask`): the engine runs each once. */
  scheduledDigest: defineTask({
    kind: 'insights.scheduled_digest',
    lane: 'digests',
    schema: ScheduledDigestSchema,
  }),
};
