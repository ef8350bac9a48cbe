import type { ServiceResult } from '../../mintlify/failure.js';
import type { AgentJob } from '../../mintlify/schemas.js';
import type { JobObservation, JobRecord } from '../../store/jobs.js';
import { nextPollInterval, nextRetryDelay, SLOW_RETRY_MS } from './backoff.js';
import { type Outcome, type OutcomeKind, outcomeOf } from './outcome.js';
import type { Delivery } from './poster.js';

// What tracking does next, decided without I/O: the scheduler runs the decision (a store transition, the next poll,
// a note to the requester), so every case reads as a row of a table and is tested as one.

export interface PollTiming {
  now: number;
  /** The interval the job is being polled at now, and the bounds it moves within. */
  intervalMs: number;
  minMs: number;
  maxMs: number;
  jobMaxAgeMs: number;
}

/** What this round's earlier polls saw: the job running (any status but an end) since the round began. */
export interface RoundSight {
  seenRunning: boolean;
}

/**
 * For how many of the shortest poll intervals after a follow-up (30 s at the default 5 s) the service may still
 * show the previous round's end: it takes a follow-up up asynchronously ("poll the get job endpoint to track
 * progress"). Past them, that same end is the follow-up's result (an agent quicker than a poll). A follow-up of
 * unknown fate may have reached a service too slow to answer, and its take-up shows only as the job running again:
 * its round watches the end the thread was told for as many of the longest intervals (6 min at the default 60 s).
 */
export const TAKE_UP_POLLS = 6;

export type PollDecision =
  /** The round is over (ended, gone, or still running past the maximum age): post its outcome. */
  | { kind: 'conclude'; outcome: Outcome }
  /** Still running: record what the service shows, poll again after the next interval. */
  | { kind: 'running'; observation: JobObservation }
  /** A follow-up's round still shows the previous end: the agent has not taken it up yet, poll again. */
  | { kind: 'not_taken_up' }
  /**
   * A follow-up of unknown fate whose job still shows the end the thread was told, past its longer take-up window:
   * it is taken as never having reached the agent. The round ends as that end, and nothing is posted.
   */
  | { kind: 'not_landed'; ended: OutcomeKind }
  /** No answer to act on: poll again after `waitMs`. */
  | { kind: 'retry'; waitMs: number };

/**
 * After a poll: the job's status decides; a job that is gone (404, or refused outright) ends the round. A job still
 * running past the maximum age expires whatever the poll returned: a service that never answers properly must not
 * keep a job tracked forever. A follow-up's round takes an end as its own once the job was seen running again, or
 * when it brings a new pull request, or once `TAKE_UP_POLLS` shortest intervals have passed; one of unknown fate
 * (`unsure`) that still shows the end the thread was told after `TAKE_UP_POLLS` longest intervals never landed.
 */
export function afterPoll(
  answer: ServiceResult<AgentJob>,
  record: JobRecord,
  timing: PollTiming,
  { seenRunning }: RoundSight,
): PollDecision {
  const expired = timing.now - record.roundStartedAtMs > timing.jobMaxAgeMs;
  if (!answer.ok) {
    const { failure } = answer;
    if (failure.code === 'not_found' || failure.code === 'refused') {
      return { kind: 'conclude', outcome: { kind: 'gone' } };
    }
    // Nothing was asked: polling on could only wait, unseen, for a connection that may never come back.
    if (failure.code === 'not_connected') return { kind: 'conclude', outcome: { kind: 'disconnected' } };
    if (expired) return { kind: 'conclude', outcome: { kind: 'expired' } };
    // A Retry-After of 0 (or a date already past) waits the shortest interval all the same.
    const waitMs =
      failure.code === 'rate_limited'
        ? Math.max(timing.minMs, failure.retryAfterMs)
        : nextPollInterval(timing.intervalMs, false, timing.minMs, timing.maxMs);
    return { kind: 'retry', waitMs };
  }
  const job = answer.value;
  // The status first: a job that ended while nobody was polling still gets its result, however long ago.
  const outcome = outcomeOf(job, record);
  const previousEnd = record.round > 0 && !seenRunning && (job.prLink ?? null) === record.prLink;
  const elapsedMs = timing.now - record.roundStartedAtMs;
  if (outcome && previousEnd && outcome.kind === record.unsure) {
    const watching = elapsedMs < TAKE_UP_POLLS * timing.maxMs;
    return watching ? { kind: 'not_taken_up' } : { kind: 'not_landed', ended: outcome.kind };
  }
  if (outcome && previousEnd && elapsedMs < TAKE_UP_POLLS * timing.minMs) return { kind: 'not_taken_up' };
  if (outcome) return { kind: 'conclude', outcome };
  if (expired) return { kind: 'conclude', outcome: { kind: 'expired' } };
  return { kind: 'running', observation: observationOf(job) };
}

/** What an answer about a job tells its record: its status, and the repository, branch and model it works with. */
export function observationOf(job: AgentJob): JobObservation {
  return { status: job.status, repository: job.source?.repository, ref: job.source?.ref, model: job.model };
}

/** How long Slack has refused this round's outcome for now, and the last wait between attempts. */
export interface Failing {
  since?: number | undefined;
  retryDelayMs?: number | undefined;
}

export type DeliveryDecision =
  /** In the thread (posted now, or found there): end the round with its outcome. */
  | { kind: 'end' }
  /** The round moved on (a follow-up) or a peer is posting: poll again at the shortest interval. */
  | { kind: 'poll_soon' }
  /** Slack refused for now: try again after `waitMs`. */
  | { kind: 'retry'; waitMs: number; failing: Required<Failing> }
  /** Slack will never take it in the thread (or refused for longer than a job may run): stop, tell the requester. */
  | { kind: 'give_up'; code: string };

/** After an attempt to post a round's outcome. */
export function afterDelivery(
  delivery: Delivery,
  failing: Failing,
  { now, minMs, jobMaxAgeMs }: Pick<PollTiming, 'now' | 'minMs' | 'jobMaxAgeMs'>,
): DeliveryDecision {
  switch (delivery.kind) {
    case 'posted':
      return { kind: 'end' };
    case 'superseded':
    case 'busy':
      return { kind: 'poll_soon' };
    case 'final':
      return { kind: 'give_up', code: delivery.code };
    case 'retry': {
      const since = failing.since ?? now;
      if (now - since > jobMaxAgeMs) return { kind: 'give_up', code: delivery.code };
      const retryDelayMs = delivery.slow ? SLOW_RETRY_MS : nextRetryDelay(failing.retryDelayMs, minMs);
      return { kind: 'retry', waitMs: delivery.retryAfterMs ?? retryDelayMs, failing: { since, retryDelayMs } };
    }
  }
}
