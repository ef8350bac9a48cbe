import type { ServiceFailure } from '../../mintlify/failure.js';
import { type PageVisitors, VISITORS_MAX_LIMIT, type VisitorCounts } from '../../mintlify/schemas.js';
import { UTC } from '../../zone.js';
import { type ChartPost, postChartIn } from '../chart/deliver.js';
import { chartCopy, reportCopy } from '../messages.js';
import { type DayRange, previousPeriod } from '../periods.js';
import { fetchPage, type PageDeps } from '../report/page.js';
import type { DigestChart, ScheduledDigest } from '../requests.js';
import { handBack } from '../slack-busy.js';
import { visitorsTasks } from '../visitors-tasks.js';
import { DIGEST_PAGES_PER_PERIOD, digestMessage, type PeriodData } from './blocks.js';
import { type DeliverDeps, type DigestOutcome, deliverDigest, runScheduled } from './deliver.js';
import { VISITORS_DIGEST } from './kind.js';
import { chartRange, describeSchedule, digestPeriod } from './schedule.js';
import type { Subscription } from './store.js';

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

type DigestDeps = PageDeps & DeliverDeps;

/** Sends `subscription`'s digest for the period its scheduled instant `dueAt` closes. */
export async function sendDigest(deps: DigestDeps, subscription: Subscription, dueAt: number): Promise<DigestOutcome> {
  const { channel, project, schedule } = subscription;
  const period = digestPeriod(schedule, dueAt);
  const fields = { channel, cadence: schedule.cadence, from: period.from, to: period.to };
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
  const outcome = await deliverDigest(deps, VISITORS_DIGEST, { subscription, period, message });
  if (outcome !== 'posted') return outcome;
  const comment = `Trend for the ${schedule.cadence} visitors digest (${reportCopy.zone(period.tz ?? UTC)}).`;
  const range = { ...chartRange(schedule.cadence, period), limit: 1, offset: 0 };
  const where = { channel, sharedBy: subscription.createdBy, text: chartCopy.inChannel(range), comment };
  const chart = await postChartIn(deps, project, range, where);
  const later = !chart.ok && (await putOffChart(deps, { project, range, where, since: deps.now() }, chart));
  deps.log.info('visitors.digest_posted', { ...fields, chart: chart.ok ? chart.as : later ? 'later' : false });
  return 'posted';
}

/** How long after its digest a chart Slack rate-limits is still posted. */
const CHART_FOR_MS = 10 * 60_000;

/** The digest's chart, put off by Slack's 429 (`runDigestChart`): posted then, or put off again while Slack asks. */
export async function runDigestChart(deps: DigestDeps, request: DigestChart): Promise<void> {
  const { project, range, where } = request;
  const chart = await postChartIn(deps, project, range, where);
  if (chart.ok || (await putOffChart(deps, request, chart))) return;
  deps.log.warn('visitors.digest_chart_failed', { channel: where.channel, reason: chart.reason });
}

/** True when Slack's 429 put the chart off and it went back to its lane for Retry-After, within `CHART_FOR_MS`. */
async function putOffChart(deps: DigestDeps, request: DigestChart, chart: ChartPost): Promise<boolean> {
  if (chart.ok || chart.reason !== 'slack_busy' || deps.now() - request.since >= CHART_FOR_MS) return false;
  return handBack(deps, visitorsTasks.digestChart, request, chart.retryAfterMs);
}

/** One occurrence of a visitors digest's scheduler (`runScheduled`). */
export async function runScheduledDigest(deps: DigestDeps, request: ScheduledDigest): Promise<void> {
  await runScheduled(deps, VISITORS_DIGEST, request, (subscription, dueAt) => sendDigest(deps, subscription, dueAt));
}
