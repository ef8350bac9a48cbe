import type { types } from '@slack/bolt';
import type { MessageAttachment } from '@slack/web-api';
import { draftButton } from '../insights/index.js';
import { escapeMrkdwn, inlineCode, safeLink, truncate } from '../slack/mrkdwn.js';
import { formatChange } from '../visitors/index.js';
import type { DocsPage } from './match.js';
import { type PageStats, STATS_DAYS } from './stats.js';

/** Paths shown longer than this are cut (the link keeps the whole address). */
const PATH_SHOWN = 150;

const count = new Intl.NumberFormat('en-US');

/** Slack's limit on a section's text, less the title's two stars. */
const TITLE_MAX = 3_000 - 2;

/**
 * The page's title line: its path, linked to the page. A link too long for a section is left out (Slack would refuse
 * the unfurl of every link in the message); the path still names the page.
 */
function title(page: DocsPage): string {
  const shown = truncate(page.path, PATH_SHOWN);
  const linked = safeLink(page.url, shown);
  return `*${linked && linked.length <= TITLE_MAX ? linked : escapeMrkdwn(shown)}*`;
}

function field(label: string, now: number, before: number | undefined): types.MrkdwnElement {
  return { type: 'mrkdwn', text: `${label}\n*${count.format(now)}*  ${formatChange(now, before)}` };
}

/**
 * The unfurl of a docs link: the page, its human and AI unique visitors over the last 7 days with their change
 * against the 7 before, and "Update this page" (unless `update` is false). A page the service knows nothing about
 * gets its title only.
 */
export function unfurlAttachment(page: DocsPage, stats: PageStats, update = true): MessageAttachment {
  const heading: types.SectionBlock = { type: 'section', text: { type: 'mrkdwn', text: title(page) } };
  const project = `Docs of project ${inlineCode(page.project)}`;
  if (!stats.known) {
    return { blocks: [heading, { type: 'context', elements: [{ type: 'mrkdwn', text: project }] }] };
  }
  const { current, previous, ratings, from, to } = stats;
  // "Update this page" is /insights' Draft a fix for the page: its form, its instruction, its job.
  const button = draftButton({
    kind: 'page',
    project: page.project,
    from,
    to,
    path: page.path,
    thumbsUp: ratings?.up ?? 0,
    thumbsDown: ratings?.down ?? 0,
    comments: [],
  });
  const actions: types.ActionsBlock = {
    type: 'actions',
    elements: [{ ...button, text: { type: 'plain_text', text: 'Update this page' } }],
  };
  const fields = [
    field('Human visitors', current.human, previous?.human ?? 0),
    field('AI visitors', current.ai, previous?.ai ?? 0),
    ...(ratings
      ? [
          {
            type: 'mrkdwn' as const,
            text: `Readers' ratings\n👍 *${count.format(ratings.up)}*  👎 *${count.format(ratings.down)}*`,
          },
        ]
      : []),
  ];
  const blocks: types.KnownBlock[] = [
    { ...heading, fields },
    {
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: `${project} · unique visitors, last ${STATS_DAYS} days vs the ${STATS_DAYS} before` },
      ],
    },
    ...(update ? [actions] : []),
  ];
  return { blocks };
}
