import { describe, expect, it } from 'vitest';
import { feedbackBlock } from '../../../src/agent/feedback/buttons.js';
import { blocksToHtml } from '../../../tools/playground/render.js';
import { expectToContainAll } from '../../support/expect.js';

// The blocks of Slack's agent platform and data blocks as the playground draws them (docs.slack.dev: plan,
// task_card, context_actions with feedback_buttons, data_table, data_visualization).

describe('the plan card', () => {
  const plan = {
    type: 'plan',
    title: 'Mintlify agent job',
    tasks: [
      { type: 'task_card', task_id: 'created', title: 'Created on acme/docs@main', status: 'complete' },
      {
        type: 'task_card',
        task_id: 'working',
        title: 'Agent working · 2 min elapsed',
        status: 'in_progress',
        details: {
          type: 'rich_text',
          elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'Mintlify says <queued>' }] }],
        },
      },
      { type: 'task_card', task_id: 'result', title: 'Pull request', status: 'pending' },
    ],
  };

  it('shows the title, how many tasks are done, and each task with its status and details (escaped)', () => {
    const html = blocksToHtml([plan]);
    expectToContainAll(html, [
      '<span class="plan-title">Mintlify agent job</span>',
      '<span class="plan-count">1/3</span>',
      '<li class="task complete" data-status="complete">',
      '<div class="task-title">Created on acme/docs@main</div>',
      '<li class="task in-progress" data-status="in_progress">',
      'Mintlify says &lt;queued&gt;',
      '<li class="task pending" data-status="pending">',
    ]);
  });

  it('shows a lone task card, and a stream’s markdown as text', () => {
    const html = blocksToHtml([
      { type: 'markdown', text: 'Working on *it*' },
      { type: 'task_card', task_id: 't', title: 'Failed <b>', status: 'error' },
    ]);
    expectToContainAll(html, ['Working on <strong>it</strong>', '<li class="task error"', 'Failed &lt;b&gt;']);
  });

  it('shows a stream’s escaped Markdown as the person typed it, without its backslashes', () => {
    const html = blocksToHtml([{ type: 'markdown', text: '>\\[Open\\]\\(https://x\\.example\\) \\# 1\\. a\\_b' }]);
    expect(html).toContain('[Open](https://x.example) # 1. a_b');
  });
});

describe('feedback buttons', () => {
  it('draws the app’s 👍 and 👎 as buttons that report feedback_buttons clicks with their values', () => {
    const block = feedbackBlock({ project: 'docs', jobId: 'job_1', round: 0, channel: 'C1', threadTs: '1.1' });
    const html = blocksToHtml([block]);
    const buttons = html.match(/<button[^>]*>/g) ?? [];
    expect(buttons).toHaveLength(2);
    for (const button of buttons) expect(button).toContain('data-action-type="feedback_buttons"');
    expect(html).toContain('&quot;vote&quot;:&quot;up&quot;');
    expect(html).toContain('&quot;vote&quot;:&quot;down&quot;');
    expectToContainAll(html, ['>👍</button>', '>👎</button>', 'aria-label="The agent did well"']);
  });
});

describe('data blocks', () => {
  it('draws a data table with its caption, header and numbers, escaped', () => {
    const html = blocksToHtml([
      {
        type: 'data_table',
        caption: 'Top pages',
        rows: [
          [
            { type: 'raw_text', text: 'Page' },
            { type: 'raw_text', text: 'Visitors' },
          ],
          [
            { type: 'raw_text', text: '/a<b>' },
            { type: 'raw_number', value: 1200, text: '1,200' },
          ],
        ],
      },
    ]);
    expectToContainAll(html, [
      '<caption>Top pages</caption>',
      '<th data-sort="0" title="Sort">Page</th>',
      '<td>/a&lt;b&gt;</td>',
      '<td class="number" data-value="1200">1,200</td>',
    ]);
    expect(html).not.toContain('<tfoot>'); // one page
  });

  it('shows a data table page_size rows at a time (Slack’s default 5), with a pager over the rest', () => {
    const rows = (n: number) => [
      [{ type: 'raw_text', text: 'Page' }],
      ...Array.from({ length: n }, (_, i) => [{ type: 'raw_text', text: `/p${i}` }]),
    ];
    const paged = blocksToHtml([{ type: 'data_table', caption: 'Pages', page_size: 10, rows: rows(25) }]);
    expect(paged.match(/<tr hidden>/g)).toHaveLength(15);
    expectToContainAll(paged, ['data-page-size="10"', '<span class="table-page">1 / 3</span>', 'data-table-page="1"']);
    const byDefault = blocksToHtml([{ type: 'data_table', caption: 'Pages', rows: rows(7) }]);
    expect(byDefault.match(/<tr hidden>/g)).toHaveLength(2);
    expect(byDefault).toContain('1 / 2');
    // A table block is neither paged nor sorted.
    const plain = blocksToHtml([{ type: 'table', rows: rows(7) }]);
    expect(plain).not.toContain('hidden');
    expect(plain).not.toContain('data-sort');
  });

  it('draws a chart as one line per series over its categories, with its title and legend', () => {
    const html = blocksToHtml([
      {
        type: 'data_visualization',
        title: 'Visitors <7d>',
        chart: {
          type: 'line',
          axis_config: { categories: ['Mon', 'Tue', 'Wed'] },
          series: [
            {
              name: 'Human',
              data: [
                { label: 'Mon', value: 10 },
                { label: 'Tue', value: 20 },
                { label: 'Wed', value: 40 },
              ],
            },
            { name: 'AI', data: [{ label: 'Wed', value: 5 }] },
          ],
        },
      },
    ]);
    expectToContainAll(html, [
      '<figcaption>Visitors &lt;7d&gt;</figcaption>',
      '<polyline class="series-0" points="0.0,105.0 240.0,70.0 480.0,0.0"/>',
      '<polyline class="series-1" points="480.0,122.5"/>',
      '<li class="series-0">Human</li>',
      'Mon – Wed · max 40',
    ]);
  });
});
