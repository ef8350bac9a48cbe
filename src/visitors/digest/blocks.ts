import type { types } from '@slack/bolt';
import { VISITORS_MAX_LIMIT, type VisitorCounts } from '../../mintlify/schemas.js';
import type { Message } from '../../slack/message.js';
import { inlineCode } from '../../slack/mrkdwn.js';
import { UTC } from '../../zone.js';
import { changes, formatChange } from '../change.js';
import { formatCount, formatPercent, formatRange } from '../format.js';
import { reportCopy } from '../messages.js';
import { type Mover, movers, type PeriodRows } from '../movers.js';
import { displayPath } from '../page-path.js';
import { type DayRange, previousPeriod } from '../periods.js';
import type { Cadence } from './schedule.js';

/** Pages of 250 rows fetched per period for top pages and movers; the digest says when it stopped there. */
export const DIGEST_PAGES_PER_PERIOD = 4;
const TOP_PAGES = 5;

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

/** The digest as Block Kit. Pure. */
export function digestMessage(data: DigestData): Message {
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
      `Compared with ${formatRange(previousPeriod(period).from, previousPeriod(period).to)} · ${reportCopy.zone(period.tz ?? UTC)} · Total counts each visitor once`,
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
  return inlineCode(displayPath(path), 200);
}

function section(text: string): types.SectionBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

function context(text: string): types.ContextBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text }] };
}
