import type { types } from '@slack/bolt';
import type { MessageAttachment } from '@slack/web-api';
import { z } from 'zod';
import { escapeMrkdwn, inlineCode, safeLink, truncate } from '../slack/mrkdwn.js';
import { formatChange } from '../visitors/index.js';
import type { DocsPage } from './match.js';
import { type PageStats, STATS_DAYS } from './page-stats.js';

/**
 * "Update this page": starts a fix of the page as an agent job. Its id and value are stable, so the insights'
 * "Draft a fix" can take the click over (`update-page.ts` handles it until then).
 */
export const UPDATE_PAGE_ACTION = 'insights.draft_fix';
/** Slack's limit on a button's value. */
const VALUE_MAX = 2_000;
/** Paths shown longer than this are cut (the link keeps the whole address). */
const PATH_SHOWN = 150;

export const UpdatePageValueSchema = z.object({ project: z.string().min(1), path: z.string().min(1) });
export type UpdatePageValue = z.infer<typeof UpdatePageValueSchema>;

const count = new Intl.NumberFormat('en-US');

/** The page's title line: its path, linked to the page. */
function title(page: DocsPage): string {
  const shown = truncate(page.path, PATH_SHOWN);
  return `*${safeLink(page.url, shown) ?? escapeMrkdwn(shown)}*`;
}

function field(label: string, now: number, before: number | undefined): types.MrkdwnElement {
  return { type: 'mrkdwn', text: `${label}\n*${count.format(now)}*  ${formatChange(now, before)}` };
}

/**
 * The unfurl of a docs link: the page, its human and AI unique visitors over the last 7 days with their change
 * against the 7 before, and "Update this page". A page the service knows nothing about gets its title only.
 */
export function unfurlAttachment(page: DocsPage, stats: PageStats): MessageAttachment {
  const heading: types.SectionBlock = { type: 'section', text: { type: 'mrkdwn', text: title(page) } };
  const project = `Docs of project ${inlineCode(page.project)}`;
  if (!stats.known) {
    return { blocks: [heading, { type: 'context', elements: [{ type: 'mrkdwn', text: project }] }] };
  }
  const { current, previous, ratings } = stats;
  const value = JSON.stringify({ project: page.project, path: page.path } satisfies UpdatePageValue);
  const blocks: types.KnownBlock[] = [
    {
      ...heading,
      fields: [
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
      ],
    },
    {
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: `${project} · unique visitors, last ${STATS_DAYS} days vs the ${STATS_DAYS} before` },
      ],
    },
  ];
  if (value.length <= VALUE_MAX) {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: 'Update this page' },
          action_id: UPDATE_PAGE_ACTION,
          value,
        },
      ],
    });
  }
  return { blocks };
}
