import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { classifySlackError } from '../../slack/errors.js';
import type { Message } from '../../slack/message.js';
import { findPosted } from '../../slack/witness.js';
import { BUSY, underLease } from '../../store/claims.js';
import { keys } from '../../store/keys.js';
import { TaskDeferred, type Unavailable } from '../../task.js';
import type { DayRange } from '../periods.js';
import type { ScheduledDigest } from '../requests.js';
import type { DigestKind } from './kind.js';
import { digestEndedNote, digestMissedNote, digestProjectGoneNote } from './messages.js';
import { digestMetadata } from './metadata.js';
import { digestPeriod, latestDue, nextDue } from './schedule.js';
import { type EndingDeps, endSubscription, endUnreadable, tellEnded } from './scheduler.js';
import { getSubscription, markPosting, markSent, readSubscription, type Subscription, sentState } from './store.js';

// What every kind of digest does with its message once made, and with each occurrence of its scheduler.

export type DigestOutcome = 'posted' | 'failed' | 'ended';
export type DeliverDeps = EndingDeps & Pick<Deps, 'now' | 'projects'>;

/**
 * Posts a digest in its channel with its subscription in the metadata (the witness, and what healing reads back),
 * and records its period as sent at once, before anything that follows it (a chart): a run that dies after the post
 * is tried again and finds it sent. A run that died between the post and that record left its post begun, so the
 * next looks in the channel first. A subscription Slack refuses for good (the bot removed, the channel archived, the
 * post not allowed there) ends here, and whoever set it up is told privately.
 */
export async function deliverDigest(
  deps: DeliverDeps,
  kind: DigestKind,
  { subscription, period, message }: { subscription: Subscription; period: DayRange; message: Message },
): Promise<DigestOutcome> {
  const { channel, schedule, createdBy } = subscription;
  const fields = { channel, cadence: schedule.cadence, from: period.from, to: period.to };
  const metadata = digestMetadata(subscription, period, kind);
  const payload = metadata.event_payload;
  const sent = { cadence: schedule.cadence, from: period.from };
  const inChannel = () =>
    findPosted(
      deps.slack,
      { channel },
      kind.eventType,
      (p) => p.cadence === payload.cadence && p.from === payload.from,
      // the channel could not be read either: it counts as not posted.
    ).catch(() => undefined);
  const posted = async (found?: { code: string }) => {
    if (found) deps.log.info(`${kind.feature}.digest_found`, { ...fields, ...found });
    // Not thrown: a try again would post it twice. What is lost is only the guard against a second post.
    await markSent(deps, channel, sent, kind).catch((error: unknown) =>
      deps.log.warn(`${kind.feature}.digest_sent_unrecorded`, { ...fields, error }),
    );
    return 'posted' as const;
  };
  const begun = (await sentState(deps, channel, sent, kind).catch(() => undefined)) === 'posting';
  if (begun && (await inChannel())) return posted({ code: 'begun_before' });
  // Unrecorded, the post goes ahead: a store that does not answer must not stop digests.
  await markPosting(deps, channel, sent, kind).catch(() => {});
  try {
    await deps.slack.chat.postMessage({ channel, ...message, unfurl_links: false, unfurl_media: false, metadata });
    return await posted();
  } catch (error) {
    const { kind: failure, code } = classifySlackError(error);
    // Slack may have stored it anyway: read the channel before calling it failed.
    if (failure === 'transient' && (await inChannel())) return posted({ code });
    if (failure !== 'final') {
      deps.log.warn(`${kind.feature}.digest_failed`, { ...fields, reason: 'post', code });
      return 'failed';
    }
    await endSubscription(deps, channel, kind);
    deps.log.warn(`${kind.feature}.digest_ended`, { ...fields, code, reason: 'Slack refused the digest for good' });
    // The channel refused it for good: the DM is the only way left to tell them (`direct` logs why it failed).
    if (!(await deps.replies.direct(createdBy, digestEndedNote(channel, schedule.cadence, code, kind))))
      deps.log.warn(`${kind.feature}.digest_ended_note_failed`, { ...fields, user: createdBy });
    return 'ended';
  }
}

/**
 * How long before its time, by this worker's clock, an occurrence may start: on Redis the instance whose clock is a
 * little ahead makes it due, and another may take it at once. Read by its own clock, it would be last period's
 * occurrence, already posted, and this one would be skipped. Far below a minute, so no two occurrences are confused.
 */
const CLOCK_SKEW_MS = 5_000;

/**
 * One run posts a channel's digest at a time: a run handed back on a stop (or taken over from a worker that seemed
 * dead) may still be running when another takes it, and both would find the period not yet sent. Longer than a run
 * takes (its requests are bounded by their timeouts); a dead run's lease lapses before the engine's third try.
 */
const RUN_LEASE_MS = 5 * 60_000;

/**
 * One occurrence of a subscription's scheduler (the engine runs each once, on one instance): `send` the digest of
 * the latest scheduled instant, which is the occurrence itself unless it ran late. A scheduler left by a
 * subscription that is gone is removed; a digest that did not go out rejects, to be tried again.
 */
export async function runScheduled(
  deps: DeliverDeps,
  kind: DigestKind,
  { channel }: ScheduledDigest,
  send: (subscription: Subscription, dueAt: number) => Promise<DigestOutcome>,
): Promise<void> {
  const stored = await readSubscription(deps, channel, kind);
  if (!stored) {
    await endSubscription(deps, channel, kind);
    return;
  }
  if ('unreadable' in stored) return endUnreadable(deps, kind, channel, stored);
  const { subscription } = stored;
  // A project taken out of the configuration (or a connection changed to another): its digest ends, said once.
  // A workspace with no project at all is not connected; its digests wait for it.
  if (deps.projects.all.length > 0 && !deps.projects.knows(subscription.project)) {
    await endSubscription(deps, channel, kind);
    const { project, schedule, createdBy } = subscription;
    deps.log.warn(`${kind.feature}.digest_ended`, { channel, project, reason: 'the app no longer serves its project' });
    await tellEnded(
      deps,
      kind,
      { channel, createdBy },
      digestProjectGoneNote(channel, schedule.cadence, project, kind),
    );
    return;
  }
  const { schedule } = subscription;
  const due = latestDue(schedule, deps.now() + CLOCK_SKEW_MS, subscription.createdAt);
  if (due === undefined) return;
  const period = digestPeriod(schedule, due);
  const sent = { cadence: schedule.cadence, from: period.from };
  const holder = { claims: deps.store.claims, owner: randomUUID() };
  const outcome = await underLease(holder, keys.digestRun(channel, kind.feature), RUN_LEASE_MS, async () => {
    if ((await sentState(deps, channel, sent, kind)) === 'sent') {
      deps.log.info(`${kind.feature}.digest_already_posted`, { channel, ...sent });
      return 'posted';
    }
    // Recorded as sent by `deliverDigest` as soon as it is posted.
    return send(subscription, due);
  });
  // Thrown so the engine tries the occurrence again after its backoff (the `digests` lane's): by then the other
  // run has posted it (or died, its lease lapsed).
  if (outcome === BUSY) throw new TaskDeferred(`another run of the digest of ${channel} is under way`);
  if (outcome === 'failed') throw new Error(`the digest of ${channel} did not go out`);
}

/**
 * A scheduled digest's `unavailable` (src/task.ts): an occurrence that did not go out, its last try failed (or its
 * worker kept dying, or the in-process queue stopped with it waiting), is told to whoever set the digest up, with
 * the period it would have covered; the subscription stays. A subscription ended since has nobody to tell.
 */
export const scheduledDigestMissed =
  (kind: DigestKind) =>
  async (deps: DeliverDeps, { channel }: ScheduledDigest, why: Unavailable): Promise<void> => {
    const subscription = await getSubscription(deps, channel, kind);
    const due = subscription && latestDue(subscription.schedule, deps.now(), subscription.createdAt);
    if (!subscription || due === undefined) return;
    const { schedule, createdBy } = subscription;
    const when = { period: digestPeriod(schedule, due), next: nextDue(schedule, deps.now()) };
    deps.log.error(`${kind.feature}.digest_missed`, { channel, cadence: schedule.cadence, why, ...when.period });
    await deps.replies.direct(
      createdBy,
      digestMissedNote(subscription, when, why === 'restarting' ? why : 'failed', kind),
    );
  };
