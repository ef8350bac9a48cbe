import { projectOrigin } from '../../config/projects.js';
import type { Deps } from '../../deps.js';
import { SLACK_TIMEOUT_MS } from '../../slack/client.js';
import { classifySlackError } from '../../slack/errors.js';
import { findPosted } from '../../slack/witness.js';
import type { JobRecord, JobRef } from '../../store/jobs.js';
import { keys } from '../../store/keys.js';
import { OUTCOME_EVENT_TYPE, outcomeMessage, type Telling, undeliveredNote } from '../job-messages.js';
import { steerOf } from '../steering.js';
import type { Outcome } from './outcome.js';

/**
 * Posting a round's outcome into its thread, once. The cases, in order:
 *
 * | step | what happens | then |
 * |---|---|---|
 * | claim `posting:<project>:<job>:<round>` | a peer holds it | `busy`: look again later |
 * | mark the attempt on the record | the round moved on or already ended | `superseded` / `posted` |
 * | an earlier attempt was marked | read the thread since it began; a message with this job and round in its metadata | `posted` |
 * | post with `metadata` | Slack answered ok | `posted` |
 * |  | 429 | `retry` after its Retry-After (nothing was posted) |
 * |  | 5xx, timeout, network, `internal_error` | `retry`; the next attempt reads the thread first (Slack may have stored it) |
 * |  | token or scope refused | `retry`, slowly: an admin must act |
 * |  | any other refusal (`is_archived`, `invalid_blocks`, …) | `final` |
 *
 * Slack is the witness: a crash between Slack's answer and the record's update, a 5xx after Slack stored the
 * message, or a claim that lapsed all end with the thread read before anything is posted again.
 */
export type Delivery =
  | { kind: 'posted'; found: boolean }
  | { kind: 'superseded' }
  | { kind: 'busy' }
  | { kind: 'retry'; code: string; retryAfterMs?: number; slow?: boolean }
  | { kind: 'final'; code: string };

/**
 * Longer than the Slack client's request deadline, so a slow post cannot outlive its claim (the claim is renewed
 * just before posting). No longer: a crashed holder's claim only delays the next instance.
 */
export const POSTING_CLAIM_MS = SLACK_TIMEOUT_MS + 5_000;
/** Where a Slack 429 is remembered, so every instance waits out its Retry-After, not only the one that got it. */
const COOLDOWN_KEY = keys.slackCooldown('chat.postMessage');

export type PosterDeps = Pick<Deps, 'store' | 'slack' | 'instanceId' | 'config' | 'now'>;

export async function deliverOutcome(deps: PosterDeps, record: JobRecord, outcome: Outcome): Promise<Delivery> {
  const { store, slack, instanceId, config } = deps;
  const ref: JobRef = { project: record.project, jobId: record.jobId };
  const claim = keys.posting(ref, record.round);
  // `renew`, not `claim`: a claim this instance already holds is from an attempt the store cut off (its reply
  // was lost); the lease lets only this instance poll the job, so it is ours to continue.
  if (!(await store.claims.renew(claim, instanceId, POSTING_CLAIM_MS))) return { kind: 'busy' };
  try {
    // Slack's clock is the wall clock (its `ts`), whatever clock the app's decisions run on.
    const permit = await store.jobs.beginPost(ref, record.round, Date.now());
    if (!permit.ok) return permit.reason === 'ended' ? { kind: 'posted', found: true } : { kind: 'superseded' };
    try {
      // Waiting out a 429 first: nothing is posted now, so there is nothing to look for yet (an earlier attempt
      // that may have posted keeps its mark: the attempt after the wait looks).
      const coolingMs = (await rateLimitedUntil(deps)) - deps.now();
      if (coolingMs > 0) {
        if (permit.earlierAttempt) return { kind: 'retry', code: 'ratelimited', retryAfterMs: coolingMs };
        return await notPosted(deps, ref, record.round, coolingMs);
      }
      if (permit.earlierAttempt && (await postedEarlier(deps, record, permit.atMs))) {
        return { kind: 'posted', found: true };
      }
      // Reading the thread took time: the claim must be ours for the whole post.
      if (!(await store.claims.renew(claim, instanceId, POSTING_CLAIM_MS))) return { kind: 'busy' };
      await slack.chat.postMessage({
        channel: record.channel,
        thread_ts: record.threadTs,
        unfurl_links: false,
        ...outcomeMessage(record, outcome, tellingOf(record, config)),
        metadata: {
          event_type: OUTCOME_EVENT_TYPE,
          event_payload: { project: record.project, job_id: record.jobId, round: record.round },
        },
      });
      return { kind: 'posted', found: false };
    } catch (error) {
      const failure = classifySlackError(error);
      switch (failure.kind) {
        case 'rate_limited':
          await coolDown(deps, failure.retryAfterMs);
          return await notPosted(deps, ref, record.round, failure.retryAfterMs);
        case 'transient':
          return { kind: 'retry', code: failure.code };
        case 'misconfigured':
          return { kind: 'retry', code: failure.code, slow: true };
        case 'final':
          return { kind: 'final', code: failure.code };
      }
    }
  } finally {
    // the store guard counts the failure; the claim lapses by its TTL.
    await store.claims.release(claim, instanceId).catch(() => {});
  }
}

/**
 * A 429 (now, or one still cooling): Slack posted nothing, so this attempt is forgotten and the next one posts
 * without reading the thread first. Reading it after every 429 would spend Tier 3 calls exactly when Slack is
 * already limiting the bot.
 */
async function notPosted(deps: PosterDeps, ref: JobRef, round: number, retryAfterMs: number): Promise<Delivery> {
  // the store guard counts the failure; the post's claim lapses and the retry finds it.
  await deps.store.jobs.abandonPost(ref, round).catch(() => {});
  return { kind: 'retry', code: 'ratelimited', retryAfterMs };
}

/**
 * Whether the thread already holds this round's outcome (an earlier attempt's answer was lost), read from when that
 * attempt began (`sinceMs`; the whole thread for a record that does not keep it).
 */
async function postedEarlier(deps: PosterDeps, record: JobRecord, sinceMs: number | undefined): Promise<boolean> {
  const where = { channel: record.channel, threadTs: record.threadTs, since: sinceMs };
  const ts = await findPosted(deps.slack, where, OUTCOME_EVENT_TYPE, (payload) => {
    return (
      payload.job_id === record.jobId && payload.project === record.project && Number(payload.round) === record.round
    );
  });
  return ts !== undefined;
}

async function rateLimitedUntil(deps: PosterDeps): Promise<number> {
  return Number(await deps.store.kv.get(COOLDOWN_KEY)) || 0;
}

async function coolDown(deps: PosterDeps, retryAfterMs: number): Promise<void> {
  // the store guard counts the failure; without it the retry's own backoff still waits.
  await deps.store.kv.set(COOLDOWN_KEY, deps.now() + retryAfterMs, retryAfterMs).catch(() => {});
}

/**
 * The outcome reaches the requester even when its thread cannot take it (channel archived, bot removed): in the
 * bot's DM with them, with why.
 */
export async function tellRequester(
  deps: Pick<Deps, 'replies' | 'config'>,
  record: JobRecord,
  outcome: Outcome,
  slackError: string,
): Promise<void> {
  const note = undeliveredNote(record, outcome, tellingOf(record, deps.config), slackError);
  await deps.replies.direct(record.userId, note);
}

/** How `record`'s outcome is told, as the app is configured. */
const tellingOf = (record: JobRecord, config: Deps['config']): Telling => ({
  jobMaxAgeMs: config.jobMaxAgeMs,
  steer: steerOf(record, config.followUps),
  origin: projectOrigin(config),
});
