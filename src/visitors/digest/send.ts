import type { Deps } from '../../deps.js';
import type { ServiceFailure } from '../../mintlify/failure.js';
import { type PageVisitors, VISITORS_MAX_LIMIT, type VisitorCounts } from '../../mintlify/schemas.js';
import { classifySlackError } from '../../slack/errors.js';
import { findPosted } from '../../slack/witness.js';
import { postChartIn } from '../chart/deliver.js';
import { reportCopy } from '../messages.js';
import { type DayRange, previousPeriod } from '../periods.js';
import { fetchPage, type PageDeps } from '../report/page.js';
import type { ScheduledDigest } from '../requests.js';
import { UTC } from '../zone.js';
import { DIGEST_PAGES_PER_PERIOD, digestMessage, type PeriodData } from './blocks.js';
import { digestEndedNote } from './messages.js';
import { DIGEST_EVENT_TYPE, digestMetadata } from './metadata.js';
import { chartRange, describeSchedule, digestPeriod, latestDue } from './schedule.js';
import { endSubscription, type SchedulerDeps } from './scheduler.js';
import { getSubscription, type Subscription } from './store.js';

/** Up to `DIGEST_PAGES_PER_PERIOD` pages of the period's rows (cached like report pages) and its totals. */
async function periodData(
  deps: PageDeps,
  project: string,
  range: DayRange,
): Promise<{ ok: true; data: PeriodData } | { ok: false; failure: ServiceFailure }> {
  const rows: PageVisitors[] = [];
  let totals: VisitorCounts = { human: 0, ai: 0, total: 0 };
  for (let page = 0; page < DIGEST_PAGES_PER_PERIOD; page++) {
    const result = await fetchPage(deps, project, {
      ...range,
      limit: VISITORS_MAX_LIMIT,
      offset: page * VISITORS_MAX_LIMIT,
    });
    if (!result.ok) return result;
    const { response } = result.page;
    totals = response.totals;
    rows.push(...response.visitors);
    if (!response.hasMore || response.visitors.length === 0)
      return { ok: true, data: { rows, totals, complete: true } };
  }
  return { ok: true, data: { rows, totals, complete: false } };
}

export type DigestOutcome = 'posted' | 'failed' | 'ended';

type DigestDeps = PageDeps & SchedulerDeps & Pick<Deps, 'slack' | 'replies'>;
type Fields = { channel: string; cadence: string; from: string; to: string };

/** Sends `subscription`'s digest for the period its scheduled instant `dueAt` closes. */
export async function sendDigest(deps: DigestDeps, subscription: Subscription, dueAt: number): Promise<DigestOutcome> {
  const { channel, project, schedule } = subscription;
  const period = digestPeriod(schedule, dueAt);
  const fields = { channel, cadence: schedule.cadence, from: period.from, to: period.to };
  const outcome = await postDigest(deps, subscription, period, fields);
  if (outcome !== 'posted') return outcome;
  const comment = `Trend for the ${schedule.cadence} visitors digest (${reportCopy.zone(period.tz ?? UTC)}).`;
  const range = { ...chartRange(schedule.cadence, period), limit: 1, offset: 0 };
  const chart = await postChartIn(deps, project, range, { channel, sharedBy: subscription.createdBy, comment });
  deps.log.info('visitors.digest_posted', { ...fields, chart: chart ?? false });
  return 'posted';
}

/**
 * Reads both periods and posts the digest. A subscription Slack refuses for good (the bot removed, the channel
 * archived, the post not allowed there) ends here, and whoever set it up is told privately.
 */
async function postDigest(
  deps: DigestDeps,
  subscription: Subscription,
  period: DayRange,
  fields: Fields,
): Promise<'posted' | 'failed' | 'ended'> {
  const { channel, project, schedule, createdBy } = subscription;
  const [current, previous] = await Promise.all([
    periodData(deps, project, period),
    periodData(deps, project, previousPeriod(period)),
  ]);
  if (!current.ok || !previous.ok) {
    deps.log.warn('visitors.digest_failed', { ...fields, reason: 'service' });
    return 'failed';
  }
  const message = digestMessage({
    cadence: schedule.cadence,
    period,
    current: current.data,
    previous: previous.data,
    scheduleText: describeSchedule(schedule),
  });
  const metadata = digestMetadata(subscription, period);
  const payload = metadata.event_payload;
  try {
    await deps.slack.chat.postMessage({
      channel,
      ...message,
      unfurl_links: false,
      unfurl_media: false,
      metadata,
    });
    return 'posted';
  } catch (error) {
    const { kind, code } = classifySlackError(error);
    // Slack may have stored it anyway: read the channel before calling it failed.
    const stored =
      kind === 'transient' &&
      (await findPosted(
        deps.slack,
        { channel },
        DIGEST_EVENT_TYPE,
        (p) => p.cadence === payload.cadence && p.from === payload.from,
        // the channel could not be read either: it counts as not posted.
      ).catch(() => undefined));
    if (stored) {
      deps.log.info('visitors.digest_found', { ...fields, code });
      return 'posted';
    }
    if (kind !== 'final') {
      deps.log.warn('visitors.digest_failed', { ...fields, reason: 'post', code });
      return 'failed';
    }
    await endSubscription(deps, channel);
    deps.log.warn('visitors.digest_ended', { ...fields, code, reason: 'Slack refused the digest for good' });
    await deps.replies
      .direct(createdBy, digestEndedNote(channel, schedule.cadence, code))
      .catch((error) => deps.log.warn('visitors.digest_ended_note_failed', { ...fields, error }));
    return 'ended';
  }
}

/**
 * One occurrence of a subscription's scheduler (the engine runs each once, on one instance): the digest of the
 * latest scheduled instant, which is the occurrence itself unless it ran late. A scheduler left by a subscription
 * that is gone is removed; a digest that did not go out rejects, to be tried again.
 */
export async function runScheduledDigest(deps: DigestDeps, { channel }: ScheduledDigest): Promise<void> {
  const subscription = await getSubscription(deps, channel);
  if (!subscription) {
    await endSubscription(deps, channel);
    return;
  }
  const due = latestDue(subscription.schedule, deps.now(), subscription.createdAt);
  if (due === undefined) return;
  // Thrown so the engine tries the occurrence again after its backoff (the `digests` lane's).
  if ((await sendDigest(deps, subscription, due)) === 'failed')
    throw new Error(`the digest of ${channel} did not go out`);
}
