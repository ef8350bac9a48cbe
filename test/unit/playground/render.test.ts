import { describe, expect, it } from 'vitest';
import { outcomeMessage, rootMessage } from '../../../src/agent/job-messages.js';
import { usage } from '../../../src/agent/messages.js';
import type { JobRecord } from '../../../src/store/jobs.js';
import { buildReport } from '../../../src/visitors/blocks.js';
import { blocksToHtml, messageToHtml, mrkdwnToHtml, textToHtml } from '../../../tools/playground/render.js';
import { expectToContainAll } from '../../support/expect.js';

const names = {
  user: (id: string) => ({ U123ALICE: 'alice' })[id],
  channel: (id: string) => ({ C123DOCS: 'docs' })[id],
  fileUrl: (file: { id?: string }) => (file.id ? `/files/${file.id}` : undefined),
};

describe('mrkdwnToHtml', () => {
  it.each([
    ['*bold*', '<strong>bold</strong>'],
    ['_italic_', '<em>italic</em>'],
    ['~gone~', '<del>gone</del>'],
    ['`a <b> & c`', '<code>a &lt;b&gt; &amp; c</code>'],
    ['`*not bold*`', '<code>*not bold*</code>'],
    ['snake_case_name and 2*3*4', 'snake_case_name and 2*3*4'],
    [
      '<https://x.test/a?b=1&amp;c=2|docs &amp; more>',
      '<a href="https://x.test/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">docs &amp; more</a>',
    ],
    ['<https://x.test>', '<a href="https://x.test/" target="_blank" rel="noopener noreferrer">https://x.test</a>'],
    [
      '*<https://x.test|PR>*',
      '<strong><a href="https://x.test/" target="_blank" rel="noopener noreferrer">PR</a></strong>',
    ],
    ['<@U123ALICE> in <#C123DOCS>', '<span class="mention">@alice</span> in <span class="mention">#docs</span>'],
    ['<#C999|random> <!here>', '<span class="mention">#random</span> <span class="mention">@here</span>'],
    ['&lt;script&gt;alert(1)&lt;/script&gt; &amp;', '&lt;script&gt;alert(1)&lt;/script&gt; &amp;'],
    ['"quotes" & \'apostrophes\'', '&quot;quotes&quot; &amp; &#39;apostrophes&#39;'],
    ['<javascript:alert(1)|click>', 'click'],
    [':white_check_mark: done :unknown_thing:', '✅ done :unknown_thing:'],
    ['one\ntwo', 'one<br>two'],
    ['>quoted\n&gt; typed quote\nafter', '<blockquote>quoted<br>typed quote</blockquote>after'],
    ['```\n<b>*x*</b> &amp;\n```', '<pre>&lt;b&gt;*x*&lt;/b&gt; &amp;\n</pre>'],
  ])('%j → %j', (input, html) => {
    expect(mrkdwnToHtml(input, names)).toBe(html);
  });
});

describe('textToHtml', () => {
  it('escapes plain_text and keeps its line breaks; mrkdwn is formatted', () => {
    expect(textToHtml({ type: 'plain_text', text: '*a* <b>\nc' })).toBe('*a* &lt;b&gt;<br>c');
    expect(textToHtml({ type: 'mrkdwn', text: '*a*' })).toBe('<strong>a</strong>');
  });
});

describe('blocksToHtml', () => {
  it('renders a section with text, fields and a button or image accessory', () => {
    const html = blocksToHtml([
      {
        type: 'section',
        block_id: 'b1',
        text: { type: 'mrkdwn', text: '*Title*' },
        fields: [
          { type: 'mrkdwn', text: '*Total*\n1,700' },
          { type: 'plain_text', text: 'AI' },
        ],
        accessory: { type: 'button', action_id: 'go', value: 'v<1>', text: { type: 'plain_text', text: 'Go' } },
      },
      {
        type: 'section',
        text: { type: 'plain_text', text: 'chart' },
        accessory: { type: 'image', image_url: 'https://x.test/c.png', alt_text: 'a "chart"' },
      },
    ]);
    expect(html).toContain('<div class="text"><strong>Title</strong></div>');
    expect(html).toContain('<div class="field"><strong>Total</strong><br>1,700</div><div class="field">AI</div>');
    expect(html).toContain(
      '<button type="button" class="btn" data-action-id="go" data-block-id="b1" data-value="v&lt;1&gt;">Go</button>',
    );
    expect(html).toContain('<img class="inline-image" src="https://x.test/c.png" alt="a &quot;chart&quot;">');
  });

  it('renders header, divider, context (text and image), actions with styled and link buttons', () => {
    const html = blocksToHtml([
      { type: 'header', text: { type: 'plain_text', text: 'Visitors <7d>' } },
      { type: 'divider' },
      {
        type: 'context',
        elements: [
          { type: 'mrkdwn', text: '_note_' },
          { type: 'image', image_url: 'https://x.test/i.png', alt_text: 'i' },
        ],
      },
      {
        type: 'actions',
        block_id: 'nav',
        elements: [
          {
            type: 'button',
            action_id: 'next',
            value: '2',
            style: 'primary',
            text: { type: 'plain_text', text: 'Next' },
          },
          {
            type: 'button',
            action_id: 'pr',
            url: 'https://github.com/a/b/pull/1',
            text: { type: 'plain_text', text: 'Open' },
          },
          { type: 'button', action_id: 'bad', url: 'javascript:alert(1)', text: { type: 'plain_text', text: 'Bad' } },
        ],
      },
    ]);
    expect(html).toContain('<div class="block header">Visitors &lt;7d&gt;</div>');
    expect(html).toContain('<hr class="block divider">');
    expect(html).toContain('<span><em>note</em></span><img class="context-image" src="https://x.test/i.png" alt="i">');
    expect(html).toContain(
      'class="btn primary" data-action-id="next" data-block-id="nav" data-value="2">Next</button>',
    );
    expect(html).toContain(
      '<a class="btn" href="https://github.com/a/b/pull/1" target="_blank" rel="noopener noreferrer" data-action-id="pr" data-block-id="nav">Open</a>',
    );
    expect(html).toContain('<button type="button" class="btn" data-action-id="bad" data-block-id="nav">Bad</button>');
  });

  it('renders image blocks from a URL or a slack_file, and says so when an image cannot be shown', () => {
    const html = blocksToHtml(
      [
        { type: 'image', image_url: 'https://x.test/a.png', alt_text: 'A', title: { type: 'plain_text', text: 'T' } },
        { type: 'image', slack_file: { id: 'F1' }, alt_text: 'chart' },
        { type: 'image', image_url: 'file:///etc/passwd', alt_text: 'nope' },
      ],
      names,
    );
    expect(html).toContain(
      '<div class="image-title">T</div><img class="block-image" src="https://x.test/a.png" alt="A">',
    );
    expect(html).toContain('<img class="block-image" src="/files/F1" alt="chart">');
    expect(html).toContain('<span class="block-image missing">nope</span>');
  });

  it('renders rich text: sections, styles, links, mentions, emoji, quotes, code and lists', () => {
    const html = blocksToHtml(
      [
        {
          type: 'rich_text',
          elements: [
            {
              type: 'rich_text_section',
              elements: [
                { type: 'user', user_id: 'U123ALICE' },
                { type: 'text', text: ' <b> ', style: { bold: true } },
                { type: 'link', url: 'https://x.test', text: 'x' },
                { type: 'emoji', name: 'eyes' },
              ],
            },
            { type: 'rich_text_quote', elements: [{ type: 'text', text: 'q' }] },
            { type: 'rich_text_preformatted', elements: [{ type: 'text', text: 'code' }] },
            {
              type: 'rich_text_list',
              style: 'ordered',
              elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'one' }] }],
            },
          ],
        },
      ],
      names,
    );
    expect(html).toBe(
      '<div class="block rich-text"><div><span class="mention">@alice</span><strong> &lt;b&gt; </strong>' +
        '<a href="https://x.test/" target="_blank" rel="noopener noreferrer">x</a>👀</div>' +
        '<blockquote>q</blockquote><pre>code</pre><ol><li>one</li></ol></div>',
    );
  });

  it('names a block type it does not know instead of dropping it', () => {
    expect(blocksToHtml([{ type: 'video' }])).toBe('<div class="block unsupported">[video block]</div>');
  });
});

describe('what the app posts', () => {
  const record = {
    project: 'docs',
    jobId: 'job_1',
    channel: 'C123DOCS',
    threadTs: '1.1',
    statusTs: '1.1',
    userId: 'U123ALICE',
    prompt: 'Document <webhooks> & *retries*',
    createdAtMs: 0,
    roundStartedAtMs: 0,
    round: 0,
    repository: 'acme/docs',
    ref: 'mintlify/agent-1',
    status: 'active',
  } as unknown as JobRecord;

  it('renders the root message: mention, quoted prompt escaped, status context', () => {
    const html = messageToHtml(rootMessage(record, { now: 60_000 }), names);
    expectToContainAll(html, [
      '<span class="mention">@alice</span> asked the Mintlify agent:',
      '<blockquote>Document &lt;webhooks&gt; &amp; <strong>retries</strong></blockquote>',
      '<div class="block context">',
      '<code>job_1</code>',
    ]);
  });

  it('renders the PR outcome with its link and link button', () => {
    const html = messageToHtml(
      outcomeMessage(
        record,
        { kind: 'pull_request', prLink: 'https://github.com/acme/docs/pull/7', updated: false },
        { jobMaxAgeMs: 1, steer: 'reply', origin: 'connected' },
      ),
      names,
    );
    expect(html).toContain('✅ The agent opened a pull request: <a href="https://github.com/acme/docs/pull/7"');
    expect(html).toContain('class="btn primary" href="https://github.com/acme/docs/pull/7"');
    expect(html).toContain('data-action-id="agent.open_pr"');
  });

  it('renders usage help (text only) and the visitors report (header, fields, divider, buttons, context)', () => {
    expect(messageToHtml({ text: usage('reply').text }, names)).toContain('<code>/agent &lt;instruction&gt;</code>');
    const report = buildReport({
      query: { from: '2026-11-15', to: '2026-11-21', limit: 1, offset: 0 },
      response: {
        totals: { human: 10, ai: 5, total: 15 },
        visitors: [{ path: '/quickstart', human: 10, ai: 5, total: 15 }],
        hasMore: true,
      },
      fetchedAt: Date.parse('2026-11-22T00:00:00Z'),
    });
    const html = messageToHtml(report, names);
    for (const part of ['class="block header"', 'class="fields"', 'class="block divider"', 'class="block actions"']) {
      expect(html).toContain(part);
    }
    expect(html).toContain('/quickstart');
    expect(html).not.toContain('unsupported');
  });
});
