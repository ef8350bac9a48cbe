import type { types } from '@slack/bolt';
import type { Deps } from '../deps.js';
import { type PageVisitors, VISITORS_MAX_LIMIT, type VisitorCounts } from '../mintlify/schemas.js';
import { classifySlackError, NOT_IN_CHANNEL } from '../slack/errors.js';
import { escapeMrkdwn } from '../slack/mrkdwn.js';
import { findPosted } from '../slack/witness.js';
import { displayPath } from './blocks.js';
import { changes, formatChange } from './change.js';
import { makeChart, uploadChart } from './chart-delivery.js';
import { type Cadence, chartRange, describeSchedule, digestPeriod, latestDue } from './digest-schedule.js';
import { deleteSubscription, listSubscriptions, type Subscription } from './digest-store.js';
import { formatCount, formatPercent, formatRange } from './format.js';
import type { SlackMessage } from './messages.js';
import { type Mover, movers, type PeriodRows } from './movers.js';
import { type DayRange, previousPeriod } from './periods.js';
import { showVisitors, type VisitorsFailure } from './report.js';

/** Pages of 250 rows fetched per period for top pages and movers; the digest says when it stopped there. */
export const DIGEST_PAGES_PER_PERIOD = 4;
const TOP_PAGES = 5;
/** A sent digest's claim outlives its period, so no replica can send it again. */
const SENT_CLAIM_TTL_MS = 40 * 86_400_000;
/** `metadata.event_type` of a digest post, so one whose answer was lost (a 5xx, a timeout) can be found again. */
const DIGEST_EVENT_TYPE = 'mintlify_visitors_digest';

export interface PeriodData extends PeriodRows {
  totals: VisitorCounts;
}

export interface DigestData {
  cadence: Cadence;
  period: DayRange;
  current: PeriodData;
  previous: PeriodData;
  scheduleText: string;
}

/** Up to `DIGEST_PAGES_PER_PERIOD` pages of the period's rows (cached like report pages) and its totals. */
async function periodData(
  deps: Deps,
  project: string,
  range: DayRange,
): Promise<{ ok: true; data: PeriodData } | { ok: false; failure: VisitorsFailure }> {
  const rows: PageVisitors[] = [];
  let totals: VisitorCounts = { human: 0, ai: 0, total: 0 };
  for (let page = 0; page < DIGEST_PAGES_PER_PERIOD; page++) {
    const result = await showVisitors(deps, project, {
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

/** The digest as Block Kit. Pure. */
export function digestMessage(data: DigestData): SlackMessage {
  const { current, previous, period } = data;
  const change = changes(current.totals, previous.totals);
  const title = `${data.cadence[0]?.toUpperCase()}${data.cadence.slice(1)} visitors digest · ${formatRange(period.from, period.to)}`;
  const field = (label: string, value: string, delta: string | undefined): types.MrkdwnElement => ({
    type: 'mrkdwn',
    text: `*${label}*\n${value}${delta ? `  ${delta}` : ''}`,
  });
  const previousByPath = new Map(previous.rows.map((r) => [r.path, r.total]));
  const top = current.rows.slice(0, TOP_PAGES).map((row, i) => {
    const before = previousByPath.get(row.path) ?? (previous.complete ? 0 : undefined);
    return `${i + 1}. ${pathCode(row.path)} ${formatCount(row.total)}  ${formatChange(row.total, before)}`;
  });
  const { risers, fallers } = movers(current, previous);
  const moverLine = (m: Mover) =>
    `${m.delta > 0 ? '▲' : '▼'} ${pathCode(m.path)} ${m.delta > 0 ? '+' : '−'}${formatCount(Math.abs(m.delta))} (${formatCount(m.previous)} → ${formatCount(m.current)})`;
  const capped = !current.complete || !previous.complete;
  const blocks: types.KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: title } },
    {
      type: 'section',
      fields: [
        field('Total visitors', formatCount(current.totals.total), change?.total),
        field('Human', formatCount(current.totals.human), change?.human),
        field('AI', formatCount(current.totals.ai), change?.ai),
        field('AI share', formatPercent(current.totals.ai, current.totals.total), change?.aiShare),
      ],
    },
    context(
      `Compared with ${formatRange(previousPeriod(period).from, previousPeriod(period).to)} · dates in UTC · Total counts each visitor once`,
    ),
    section(`*Top pages*\n${top.length > 0 ? top.join('\n') : 'No visitors in this period.'}`),
    section(
      `*Biggest movers*\n${
        risers.length + fallers.length > 0
          ? [...risers, ...fallers].map(moverLine).join('\n')
          : 'No page moved against the previous period.'
      }`,
    ),
  ];
  if (capped) {
    blocks.push(
      context(
        `Top pages and movers compare the first ${formatCount(DIGEST_PAGES_PER_PERIOD * VISITORS_MAX_LIMIT)} pages of each period: ` +
          `the digest stops at ${DIGEST_PAGES_PER_PERIOD} requests per period.`,
      ),
    );
  }
  blocks.push(context(`Posted ${data.scheduleText} · \`/visitors digest off\` stops it.`));
  return {
    text: `${title}: ${formatCount(current.totals.total)} visitors${change ? ` (${change.total})` : ''}.`,
    blocks,
  };
}

function pathCode(path: string): string {
  return `\`${escapeMrkdwn(displayPath(path))}\``;
}

function section(text: string): types.SectionBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

function context(text: string): types.ContextBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text }] };
}

export type DigestOutcome = 'posted' | 'taken' | 'failed' | 'ended';

/**
 * Sends `subscription`'s digest for the period its scheduled instant `dueAt` closes, unless a replica already
 * has: the claim per channel and period is taken first (SET NX on Redis), so it is posted exactly once.
 */
export async function sendDigest(deps: Deps, subscription: Subscription, dueAt: number): Promise<DigestOutcome> {
  const { channel, project, schedule } = subscription;
  const period = digestPeriod(schedule.cadence, dueAt);
  const claim = `visitors:digest:sent:${channel}:${schedule.cadence}:${period.from}`;
  if (!(await deps.store.claims.claim(claim, deps.instanceId, SENT_CLAIM_TTL_MS))) return 'taken';
  const fields = { channel, cadence: schedule.cadence, from: period.from, to: period.to };
  const giveBack = () => deps.store.claims.release(claim, deps.instanceId).catch(() => {});

  const [current, previous] = await Promise.all([
    periodData(deps, project, period),
    periodData(deps, project, previousPeriod(period)),
  ]);
  if (!current.ok || !previous.ok) {
    deps.log.warn('visitors.digest_failed', { ...fields, reason: 'service' });
    await giveBack(); // the next tick tries again
    return 'failed';
  }
  const message = digestMessage({
    cadence: schedule.cadence,
    period,
    current: current.data,
    previous: previous.data,
    scheduleText: describeSchedule(schedule),
  });
  const payload = { cadence: schedule.cadence, from: period.from };
  try {
    await deps.slack.chat.postMessage({
      channel,
      ...message,
      unfurl_links: false,
      unfurl_media: false,
      metadata: { event_type: DIGEST_EVENT_TYPE, event_payload: payload },
    });
  } catch (error) {
    const { kind, code } = classifySlackError(error);
    // Slack may have stored it anyway: read the channel before giving the claim back for another try.
    const stored =
      kind === 'transient' &&
      (await findPosted(
        deps.slack,
        { channel },
        DIGEST_EVENT_TYPE,
        (p) => p.cadence === payload.cadence && p.from === payload.from,
      ).catch(() => undefined));
    if (stored) {
      deps.log.info('visitors.digest_found', { ...fields, code });
    } else if (NOT_IN_CHANNEL.has(code)) {
      await deleteSubscription(deps, channel);
      deps.log.warn('visitors.digest_ended', {
        ...fields,
        code,
        reason: 'the bot left the channel or it was archived',
      });
      return 'ended';
    } else {
      deps.log.warn('visitors.digest_failed', { ...fields, reason: 'post', code });
      await giveBack();
      return 'failed';
    }
  }
  const chart = await makeChart(deps, project, { ...chartRange(schedule.cadence, period), limit: 1, offset: 0 });
  if (chart.ok) {
    const comment = `Trend for the ${schedule.cadence} visitors digest (dates in UTC).`;
    await uploadChart(deps, chart.chart, { kind: 'channel', channel, sharedBy: subscription.createdBy }, comment);
  }
  deps.log.info('visitors.digest_posted', { ...fields, chart: chart.ok });
  return 'posted';
}

/** One scheduler tick: every subscription whose latest scheduled instant has no digest yet gets one. */
export async function runDueDigests(deps: Deps): Promise<DigestOutcome[]> {
  const now = deps.now();
  const outcomes: DigestOutcome[] = [];
  for (const subscription of await listSubscriptions(deps)) {
    const due = latestDue(subscription.schedule, now, subscription.createdAt);
    if (due === undefined) continue;
    outcomes.push(await deps.background(() => sendDigest(deps, subscription, due)));
  }
  return outcomes;
}
