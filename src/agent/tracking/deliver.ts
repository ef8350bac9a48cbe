import type { Deps } from '../../deps.js';
import { Again } from '../../queue/engine.js';
import type { JobRecord } from '../../store/jobs.js';
import { afterDelivery } from './decide.js';
import type { DeliveryData } from './lane-data.js';
import { FOLLOW_UP_MARKS, type Outcome, tookUp } from './outcome.js';
import { deliverOutcome, tellRequester } from './poster.js';
import { trackingIds } from './track.js';

export type DeliverDeps = Pick<
  Deps,
  | 'config'
  | 'log'
  | 'store'
  | 'slack'
  | 'replies'
  | 'metrics'
  | 'now'
  | 'instanceId'
  | 'lanes'
  | 'tracker'
  | 'workspace'
>;

/**
 * The `outcomes` lane's processor: posts a round's outcome in its thread once (`poster.ts`: Slack is the witness),
 * then acts on the pure decision (`afterDelivery`): the round ends; a peer is posting → the round is polled again
 * soon; Slack refused for now → the same job tries again after the wait; Slack refuses for good → tracking stops and
 * the requester hears the result in their DM.
 */
export async function deliverRound(deps: DeliverDeps, data: DeliveryData): Promise<Again | undefined> {
  const { config, store, metrics } = deps;
  const ref = { project: data.project, jobId: data.jobId };
  const log = deps.log.child({ project: data.project, job_id: data.jobId });
  const record = await store.jobs.get(ref);
  if (!record || record.ended || record.round !== data.round) return undefined;
  const outcome = data.outcome as Outcome;
  const delivery = await deliverOutcome(deps, record, outcome);
  const clock = { now: deps.now(), minMs: config.pollIntervalMs, jobMaxAgeMs: config.jobMaxAgeMs };
  const decision = afterDelivery(delivery, data.failing, clock);
  switch (decision.kind) {
    case 'end': {
      const found = delivery.kind === 'posted' && delivery.found;
      const prLink = outcome.kind === 'pull_request' ? outcome.prLink : undefined;
      await store.jobs.endRound(ref, record.round, outcome.kind, prLink);
      await confirmFollowUp(deps, record, outcome);
      metrics.outcomePosted(outcome.kind);
      if (found) metrics.duplicatePrevented('outcome');
      log.info('poller.outcome_posted', { outcome: outcome.kind, round: record.round, found });
      // A follow-up that started a new round meanwhile has its own poll; the root shows whichever is latest.
      await refresh(deps, record);
      return undefined;
    }
    case 'poll_soon':
      await deps.tracker.track({ ...ref, round: record.round });
      return undefined;
    case 'retry': {
      const code = delivery.kind === 'retry' ? delivery.code : undefined;
      log.warn('poller.post_failed', { slack_error: code, retry_in_ms: decision.waitMs });
      return new Again({ ...data, failing: decision.failing }, decision.waitMs);
    }
    case 'give_up':
      return giveUp(deps, record, outcome, decision.code);
  }
}

/** Slack will never take this outcome in its thread: stop tracking, tell the admin and the requester. */
async function giveUp(deps: DeliverDeps, record: JobRecord, outcome: Outcome, code: string): Promise<undefined> {
  const stopped = await deps.store.jobs.stopTracking(record, record.round);
  if (!stopped.ok) return undefined;
  deps.log.error('poller.outcome_undeliverable', {
    project: record.project,
    job_id: record.jobId,
    channel: record.channel,
    outcome: outcome.kind,
    slack_error: code,
    hint: 'Slack refused the outcome for good (channel archived, bot removed, message refused); tracking stopped',
  });
  await tellRequester(deps, record, outcome, code);
  await refresh(deps, record);
  return undefined;
}

/** An unsure round's reply, marked ❔, gets ✅ once its result shows the agent took it up; otherwise ❔ stays. */
async function confirmFollowUp(deps: DeliverDeps, record: JobRecord, outcome: Outcome): Promise<void> {
  if (!record.unsureTs || !tookUp(record, outcome)) return;
  const reply = { channel: record.channel, ts: record.unsureTs };
  await deps.replies.unreact(reply, FOLLOW_UP_MARKS.unknown);
  await deps.replies.react(reply, FOLLOW_UP_MARKS.accepted);
}

async function refresh(deps: DeliverDeps, record: JobRecord): Promise<void> {
  const job = { workspace: deps.workspace, project: record.project, jobId: record.jobId };
  await deps.lanes.refreshes.add({ ...job, stateChanged: true }, { id: trackingIds.refresh(job) });
}
