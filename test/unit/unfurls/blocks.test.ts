import { describe, expect, it } from 'vitest';
import { decodeEvidence } from '../../../src/insights/evidence.js';
import { unfurlAttachment } from '../../../src/unfurls/blocks.js';
import { blockKitProblems } from '../../../tools/slack-standin/block-kit.js';
import { buttonsIn } from '../../fixtures/slack.js';

const page = { url: 'https://docs.acme.example/quickstart', project: 'proj_a', path: '/quickstart' };
const WEEK = { from: '2026-11-22', to: '2026-11-28' };
const known = (stats: object) => ({ known: true as const, ...WEEK, current: { human: 3, ai: 1, total: 4 }, ...stats });

describe('a docs link’s unfurl', () => {
  it('shows human and AI visitors with their change, the page linked, and Update this page', () => {
    const stats = known({
      current: { human: 1240, ai: 310, total: 1550 },
      previous: { human: 1000, ai: 400, total: 1400 },
    });
    const attachment = unfurlAttachment(page, stats);
    const text = JSON.stringify(attachment);
    expect(text).toContain('<https://docs.acme.example/quickstart|/quickstart>');
    expect(text).toContain('Human visitors\\n*1,240*  ▲ 24.0 %');
    expect(text).toContain('AI visitors\\n*310*  ▼ 22.5 %');
    expect(text).toContain('last 7 days vs the 7 before');
    expect(blockKitProblems(attachment.blocks)).toEqual([]);
  });

  it('a link too long for a section keeps the unfurl within Block Kit: its path shown, unlinked', () => {
    const path = `/${'a&'.repeat(1_400)}`;
    const long = { ...page, url: `https://docs.acme.example${path}`, path };
    for (const stats of [known({}), { known: false as const }]) {
      const attachment = unfurlAttachment(long, stats);
      expect(blockKitProblems(attachment.blocks)).toEqual([]);
      expect(JSON.stringify(attachment)).toContain('/a&amp;a&amp;');
    }
  });

  it('makes Update this page the Draft a fix of /insights for the page, with its week and ratings as evidence', () => {
    const attachment = unfurlAttachment(page, known({ ratings: { up: 9, down: 4 } }));
    const [update] = buttonsIn(attachment.blocks);
    expect(update?.button).toMatchObject({ action_id: 'insights.draft', text: { text: 'Update this page' } });
    expect(decodeEvidence(update?.button.value)).toEqual({
      kind: 'page',
      project: 'proj_a',
      ...WEEK,
      path: '/quickstart',
      thumbsUp: 9,
      thumbsDown: 4,
      comments: [],
    });
  });

  it('shows readers’ thumbs up and down when they rated the page, and nothing of ratings otherwise', () => {
    const rated = JSON.stringify(unfurlAttachment(page, known({ ratings: { up: 1200, down: 7 } })));
    expect(rated).toContain("Readers' ratings\\n👍 *1,200*  👎 *7*");
    expect(JSON.stringify(unfurlAttachment(page, known({})))).not.toContain('👍');
  });

  it('says new for a page that had no visitors the week before', () => {
    expect(JSON.stringify(unfurlAttachment(page, known({})))).toContain('*3*  new');
  });

  it('is the page and its project only when nothing is known of it', () => {
    const attachment = unfurlAttachment(page, { known: false });
    const text = JSON.stringify(attachment);
    expect(text).toContain('/quickstart');
    expect(text).toContain('proj_a');
    expect(text).not.toContain('visitors');
    expect(buttonsIn(attachment.blocks)).toEqual([]);
  });

  it('escapes a path that holds markup, and keeps a very long path’s button within Slack’s limits', () => {
    const odd = { url: 'https://docs.acme.example/%3Cb%3E', project: 'proj_a', path: '/<b>&' };
    expect(JSON.stringify(unfurlAttachment(odd, { known: false }))).toContain('/&lt;b&gt;&amp;');
    const long = { ...page, path: `/${'x'.repeat(2_100)}` };
    const attachment = unfurlAttachment(long, known({}));
    expect(blockKitProblems(attachment.blocks)).toEqual([]);
    expect(decodeEvidence(buttonsIn(attachment.blocks)[0]?.button.value)).toBeDefined();
  });
});
