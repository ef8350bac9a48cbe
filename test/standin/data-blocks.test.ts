import { type types, webApi } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DATA_BLOCK_TYPES,
  feedbackClick,
  type SlackStandin,
  startSlackStandin,
} from '../../tools/slack-standin/index.js';

const CHANNEL = 'C123DOCS';
const labels = (n: number) => Array.from({ length: n }, (_, i) => `d${i + 1}`);
const line = (points: number, series = 1) => ({
  type: 'data_visualization',
  title: 'Unique visitors',
  chart: {
    type: 'line',
    axis_config: { categories: labels(points), x_label: 'Day', y_label: 'Visitors' },
    series: Array.from({ length: series }, (_, s) => ({
      name: `s${s}`,
      data: labels(points).map((label, i) => ({ label, value: i * 10 })),
    })),
  },
});
const text = (t: string) => ({ type: 'raw_text', text: t });
const dataTable = (rows: number, columns = 2) => ({
  type: 'data_table',
  caption: 'Pages',
  page_size: 10,
  rows: [
    Array.from({ length: columns }, (_, j) => text(`h${j}`)),
    ...Array.from({ length: rows }, (_, i) =>
      Array.from({ length: columns }, (_, j) =>
        j ? { type: 'raw_number', value: i, text: String(i) } : text(`/p${i}`),
      ),
    ),
  ],
});
const feedback = (value = 'up') => ({
  type: 'context_actions',
  elements: [
    {
      type: 'feedback_buttons',
      action_id: 'agent.feedback',
      positive_button: { text: { type: 'plain_text', text: '👍' }, value },
      negative_button: { text: { type: 'plain_text', text: '👎' }, value: 'down' },
    },
  ],
});

/** The blocks of agents and data, checked as Slack's Block Kit reference documents them. */
describe('Slack stand-in: context_actions, data_visualization, data_table, table', () => {
  let slack: SlackStandin;
  let client: webApi.WebClient;
  const post = (blocks: unknown[]) =>
    client.chat.postMessage({
      channel: CHANNEL,
      text: 'x',
      blocks: blocks as types.KnownBlock[],
    });
  const refused = (blocks: unknown[]) =>
    expect(post(blocks)).rejects.toMatchObject({ data: { error: 'invalid_blocks' } });
  const errorsOf = async (blocks: unknown[]) =>
    post(blocks).then(
      () => [],
      (error: { data: { errors: string[] } }) => error.data.errors,
    );

  beforeAll(async () => {
    slack = await startSlackStandin();
    client = new webApi.WebClient(slack.workspace.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  });
  beforeEach(() => slack.reset());
  afterAll(() => slack.close());

  it('takes a line chart of 6 series of 20 points, and refuses a 7th series, a 21st point or a label off the axis', async () => {
    await expect(post([line(20, 6)])).resolves.toMatchObject({ ok: true });
    expect(await errorsOf([line(21)])).toContainEqual(expect.stringContaining('no more than 20 items allowed'));
    expect(await errorsOf([line(5, 7)])).toContainEqual(expect.stringContaining('/chart/series]'));
    const offAxis = line(3);
    offAxis.chart.series[0]?.data.push({ label: 'elsewhere', value: 1 });
    expect(await errorsOf([offAxis])).toContainEqual(expect.stringContaining('axis_config.categories'));
    await refused([{ ...line(3), title: 'x'.repeat(51) }]);
    await refused([{ ...line(3), chart: { type: 'scatter' } }]);
    await refused([
      { type: 'data_visualization', title: 'Share', chart: { type: 'pie', segments: [{ label: 'a', value: 0 }] } },
    ]);
  });

  it('takes a data table of a header and 100 rows, and refuses 101 rows, uneven rows, rich_text headers, numbers without their text and 10,001 characters', async () => {
    await expect(post([dataTable(100)])).resolves.toMatchObject({ ok: true });
    expect(await errorsOf([dataTable(101)])).toContainEqual(expect.stringContaining('no more than 101 items allowed'));
    await refused([dataTable(0)]);
    await refused([dataTable(2, 21)]);
    const uneven = dataTable(2);
    uneven.rows[2]?.pop();
    await refused([uneven]);
    await refused([{ ...dataTable(1), caption: undefined }]);
    await refused([{ ...dataTable(1), page_size: 101 }]);
    await refused([{ ...dataTable(1), page_size: 0 }]);
    await refused([{ ...dataTable(1), row_header_column_index: 2 }]);
    // A number cell carries both its value (what the column sorts by) and the text shown for it.
    const bare = dataTable(1);
    bare.rows[1] = [text('/p0'), { type: 'raw_number', value: 3 } as never];
    expect(await errorsOf([bare])).toContainEqual(expect.stringContaining('/rows/1/1/text]'));
    const notNumber = dataTable(1);
    notNumber.rows[1] = [text('/p0'), { type: 'raw_number', value: '3', text: '3' } as never];
    expect(await errorsOf([notNumber])).toContainEqual(expect.stringContaining('/rows/1/1/value]'));
    const rich = dataTable(1);
    rich.rows[0] = [{ type: 'rich_text', elements: [] } as never, text('h1')];
    await refused([rich]);
    const long = dataTable(2);
    long.rows[1] = [text('x'.repeat(10_001)), text('y')];
    expect(await errorsOf([long])).toContainEqual(expect.stringContaining('10000 characters'));
  });

  it('takes a table of raw_text cells and refuses more than 100 rows', async () => {
    const rows = (n: number) => Array.from({ length: n }, () => [text('a'), text('b')]);
    await expect(post([{ type: 'table', rows: rows(100) }])).resolves.toMatchObject({ ok: true });
    await refused([{ type: 'table', rows: rows(101) }]);
  });

  it('takes feedback buttons in context_actions and refuses a value over 2,000 characters or a missing button', async () => {
    await expect(post([feedback()])).resolves.toMatchObject({ ok: true });
    await refused([feedback('x'.repeat(2001))]);
    await refused([{ type: 'context_actions', elements: [{ type: 'feedback_buttons', action_id: 'a' }] }]);
    await refused([{ type: 'context_actions', elements: [] }]);
  });

  it('refuses the new blocks as unsupported when told to, on the Web API and on a response_url, until reset', async () => {
    slack.refuseBlocks(DATA_BLOCK_TYPES);
    expect(await errorsOf([line(3)])).toEqual([expect.stringContaining('unsupported block type "data_visualization"')]);
    const viaUrl = await fetch(slack.responseUrl('r'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x', blocks: [dataTable(1)] }),
    });
    expect(viaUrl.status).toBe(400);
    expect(await viaUrl.json()).toEqual({ ok: false, error: 'invalid_blocks' });
    slack.reset();
    await expect(post([line(3), dataTable(1)])).resolves.toMatchObject({ ok: true });
  });

  it('delivers a click on 👍 or 👎 as block_actions with a feedback_buttons action carrying the button’s value', async () => {
    const { ts } = await post([feedback('up:proj:job:0')]);
    const payload = feedbackClick(slack, {
      user: 'U123ALICE',
      message: { channel: CHANNEL, ts: String(ts) },
      choice: 'positive',
    });
    expect(payload).toMatchObject({
      type: 'block_actions',
      user: { id: 'U123ALICE' },
      container: { type: 'message', message_ts: ts, channel_id: CHANNEL },
      actions: [
        { type: 'feedback_buttons', action_id: 'agent.feedback', value: 'up:proj:job:0', text: { text: '👍' } },
      ],
    });
    const down = feedbackClick(slack, {
      user: 'U123ALICE',
      message: { channel: CHANNEL, ts: String(ts) },
      choice: 'negative',
    });
    expect(down).toMatchObject({ actions: [{ value: 'down' }] });
    const { ts: plain } = await client.chat.postMessage({ channel: CHANNEL, text: 'no buttons' });
    expect(() =>
      feedbackClick(slack, { user: 'U1', message: { channel: CHANNEL, ts: String(plain) }, choice: 'negative' }),
    ).toThrow('no feedback buttons');
  });

  it('a click carries the presser’s own team: a Slack Connect organisation’s for one of its people', async () => {
    const { ts } = await client.chat.postMessage({ channel: 'C456PARTNERS', text: 'done', blocks: [feedback('up')] });
    const message = { channel: 'C456PARTNERS', ts: String(ts) };
    const clickBy = (user: string) => feedbackClick(slack, { user, message, choice: 'positive' });
    expect(clickBy('U9DAVE')).toMatchObject({ team: { id: 'T1' }, user: { id: 'U9DAVE', team_id: 'T9INITECH' } });
    expect(clickBy('U123ALICE')).toMatchObject({ team: { id: 'T1' }, user: { id: 'U123ALICE', team_id: 'T1' } });
  });
});
