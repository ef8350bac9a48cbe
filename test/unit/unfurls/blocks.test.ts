import { describe, expect, it } from 'vitest';
import { UPDATE_PAGE_ACTION, UpdatePageValueSchema, unfurlAttachment } from '../../../src/unfurls/blocks.js';
import { updateInstruction } from '../../../src/unfurls/doors/update-page.js';
import { blockKitProblems } from '../../../tools/slack-standin/block-kit.js';

const page = { url: 'https://docs.acme.example/quickstart', project: 'proj_a', path: '/quickstart' };

describe('a docs link’s unfurl', () => {
  it('shows human and AI visitors with their change, the page linked, and Update this page', () => {
    const stats = {
      known: true as const,
      current: { human: 1240, ai: 310, total: 1550 },
      previous: { human: 1000, ai: 400, total: 1400 },
    };
    const attachment = unfurlAttachment(page, stats);
    const text = JSON.stringify(attachment);
    expect(text).toContain('<https://docs.acme.example/quickstart|/quickstart>');
    expect(text).toContain('Human visitors\\n*1,240*  ▲ 24.0 %');
    expect(text).toContain('AI visitors\\n*310*  ▼ 22.5 %');
    expect(text).toContain('last 7 days vs the 7 before');
    const actions = attachment.blocks?.find((b) => b.type === 'actions');
    const button = actions && 'elements' in actions ? actions.elements[0] : undefined;
    expect(button).toMatchObject({ action_id: UPDATE_PAGE_ACTION, text: { text: 'Update this page' } });
    const value = button && 'value' in button ? button.value : undefined;
    expect(UpdatePageValueSchema.parse(JSON.parse(value ?? ''))).toEqual({ project: 'proj_a', path: '/quickstart' });
    expect(blockKitProblems(attachment.blocks)).toEqual([]);
  });

  it('shows readers’ thumbs up and down when they rated the page, and nothing of ratings otherwise', () => {
    const current = { human: 3, ai: 1, total: 4 };
    const rated = JSON.stringify(unfurlAttachment(page, { known: true, current, ratings: { up: 1200, down: 7 } }));
    expect(rated).toContain("Readers' ratings\\n👍 *1,200*  👎 *7*");
    expect(JSON.stringify(unfurlAttachment(page, { known: true, current }))).not.toContain('👍');
  });

  it('says new for a page that had no visitors the week before', () => {
    const text = JSON.stringify(unfurlAttachment(page, { known: true, current: { human: 3, ai: 0, total: 3 } }));
    expect(text).toContain('*3*  new');
  });

  it('is the page and its project only when nothing is known of it', () => {
    const attachment = unfurlAttachment(page, { known: false });
    const text = JSON.stringify(attachment);
    expect(text).toContain('/quickstart');
    expect(text).toContain('proj_a');
    expect(text).not.toContain('visitors');
    expect(attachment.blocks?.some((b) => b.type === 'actions')).toBe(false);
  });

  it('escapes a path that holds markup, and leaves out a button whose value would be too long', () => {
    const odd = { url: 'https://docs.acme.example/%3Cb%3E', project: 'proj_a', path: '/<b>&' };
    expect(JSON.stringify(unfurlAttachment(odd, { known: false }))).toContain('/&lt;b&gt;&amp;');
    const long = { ...page, path: `/${'x'.repeat(2_100)}` };
    const attachment = unfurlAttachment(long, { known: true, current: { human: 1, ai: 1, total: 2 } });
    expect(attachment.blocks?.some((b) => b.type === 'actions')).toBe(false);
    expect(blockKitProblems(attachment.blocks)).toEqual([]);
  });

  it('starts the agent’s instruction with the page', () => {
    expect(updateInstruction('/quickstart')).toBe('Update the page /quickstart: ');
  });
});
