import { beforeEach, describe, expect, it } from 'vitest';
import type { Fault } from '../../tools/simulator/server.js';
import { blockKitProblems } from '../../tools/slack-standin/index.js';
import type { SlackCall } from '../fakes/fake-slack-api.js';
import { viewSubmission } from '../fixtures/conversation.js';
import { buttonClick, buttonsIn, CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { eventually } from '../support/test-app.js';
import { uploadedText } from '../support/uploads.js';

// What the analytics document allows that the simulator's seed data never sends (its `rows` switch), shown by
// /insights, its Draft a fix and its CSV: escaped, cut with the cut said, no live mention, no block Slack refuses.

/** A long, multi-line reader's comment with every mrkdwn special and text that would notify people. */
const LONG_COMMENT = [
  'First line *bold* _it_ ~st~ `code` <@U0LEAKED> <!channel> <!here|here> @everyone & > <https://evil.example|click>',
  ...Array.from({ length: 60 }, (_, i) => `line ${i} ${'word '.repeat(20)}`),
  'THE END',
].join('\n');
const ODD_PATH = '/guides/a|b>c&d<e';
const RANGE = '2026-06-01..2026-11-27';
/** Bound on everything a Draft a fix button carries: Slack's action value limit. */
const VALUE_MAX = 2000;

/** Every text a person reads in blocks (and an input's prefilled value), joined. */
const visible = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : Array.isArray(value)
      ? value.map(visible).join('\n')
      : value && typeof value === 'object'
        ? Object.entries(value)
            .filter(([key, inner]) => (key === 'text' || key === 'initial_value' ? true : typeof inner === 'object'))
            .map(([, inner]) => visible(inner))
            .join('\n')
        : '';

describe.each(storeKinds)('/insights with every shape the document allows ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: 60_000 }, boot: true });
  beforeEach(() => h.slack.zones.set(USER_ID, 'UTC'));

  const always = (fault: Omit<Extract<Fault, { kind: 'rows' }>, 'count'>) =>
    h.sim.injectFault({ ...fault, count: Number.POSITIVE_INFINITY });

  async function insights(text: string, responseId: string): Promise<SlackCall> {
    const { ack } = await h.command(`/insights ${text}`, { responseId });
    expect(ack).toBeUndefined();
    return h.answer(responseId);
  }
  /** What the person sees, once Slack would take it: the texts of the blocks (a button's value is not shown). */
  function shown(call: SlackCall): string {
    expect(blockKitProblems(call.args.blocks ?? [])).toEqual([]);
    return visible(call.args.blocks ?? call.args.text);
  }
  const drafts = (call: SlackCall) =>
    buttonsIn(call.args.blocks)
      .map(({ button }) => button)
      .filter((button) => button.action_id === 'insights.draft');

  /** Nothing in what people see notifies anyone or links anywhere: every `<` the service sent is escaped. */
  function expectInert(said: string) {
    expect(said.match(/<[@!#][^>]*>|<https?:[^>]*>/g) ?? []).toEqual([]);
    expect(said).not.toMatch(/(?<!\u200B)@everyone/);
  }

  /** Clicks Draft a fix and reads the modal Slack opened (the stand-in refuses a view Slack would). */
  async function openDraft(call: SlackCall) {
    const [draft] = drafts(call);
    if (!draft) throw new Error('no Draft a fix');
    expect(String(draft.value).length).toBeLessThanOrEqual(VALUE_MAX);
    const before = h.slack.callsTo('views.open').length;
    await h.interact(buttonClick(draft, { ephemeral: true }));
    const opened = await eventually(() => h.slack.callsTo('views.open')[before], 5_000, 'the Draft a fix form');
    const view = opened.args.view as { blocks: unknown; private_metadata: string };
    expect(blockKitProblems(view.blocks, 'view')).toEqual([]);
    expect(view.private_metadata.length).toBeLessThanOrEqual(3000);
    return visible(view.blocks);
  }

  it('feedback: a long multi-line comment with markup under a page whose path has | > & <, cut and said so', async () => {
    always({
      kind: 'rows',
      set: { path: ODD_PATH, comment: LONG_COMMENT, createdAt: null },
      match: { operation: 'feedback' },
    });
    always({ kind: 'rows', set: { path: ODD_PATH }, first: 1, match: { operation: 'feedback-by-page' } });
    const list = await insights(`feedback ${RANGE} top 5`, 'fb');
    const said = shown(list);
    expect(said).toContain('a|b&gt;c&amp;d&lt;e');
    expect(said).toContain('First line *bold*');
    expect(said).not.toContain('THE END');
    expect(said).toContain('…');
    expectInert(said);
    const modal = await openDraft(list);
    expect(modal).toContain('[cut: the reader wrote more]');
    expect(modal).not.toContain('THE END');
    expectInert(modal);
  });

  it('searches: blank and empty terms, a zero-hit row and huge counts', async () => {
    always({ kind: 'rows', set: { hits: 1e15 }, match: { operation: 'searches' }, answer: { totalSearches: 1e15 } });
    always({
      kind: 'rows',
      set: { searchQuery: '', hits: 0, ctr: 0, topClickedPage: 'https://docs.example.com/a|b>c&d' },
      first: 2,
      match: { operation: 'searches' },
    });
    always({ kind: 'rows', set: { searchQuery: '   ', ctr: 0 }, first: 1, match: { operation: 'searches' } });
    const list = await insights('searches 90d top 20', 'se');
    const said = shown(list);
    expectInert(said);
    expect(said).toContain('a|b&gt;c&amp;d');
    // An empty or blank inline code span shows its backticks: a blank term is said in words.
    expect(said).not.toMatch(/`\s*`/);
    expect(said).toContain('*1.* _a blank search_');
    expect(await openDraft(list)).toContain('Search term');
  });

  it('questions: null and empty topics, an empty question, a long one with markup', async () => {
    always({
      kind: 'rows',
      set: { queryCategory: null, query: LONG_COMMENT, resolutionStatus: 'unanswered' },
      match: { operation: 'assistant' },
    });
    always({ kind: 'rows', set: { queryCategory: '', query: '' }, first: 3, match: { operation: 'assistant' } });
    const list = await insights(`questions ${RANGE} top 20`, 'qu');
    const said = shown(list);
    expect(said).toContain('_No topic_');
    expect(said).not.toContain('THE END');
    expectInert(said);
    const modal = await openDraft(list);
    expect(modal).toContain('[cut: the reader wrote more]');
    expectInert(modal);
  });

  it('a reader’s comment, search or question holding a Mintlify key or a Slack token: masked where shown, and Draft a fix starts its job', async () => {
    const key = 'mint_3xAmPlE9kEy0fAr3aDeR';
    const token = 'xoxb-1234567890-abcdefghijkl';
    const holding = `My key ${key} and token ${token} do not work`;
    const masked = 'My key mint_… and token xoxb-… do not work';
    always({ kind: 'rows', set: { comment: holding }, match: { operation: 'feedback' } });
    always({ kind: 'rows', set: { searchQuery: holding, ctr: 0 }, first: 1, match: { operation: 'searches' } });
    always({
      kind: 'rows',
      set: { queryCategory: holding, query: holding, resolutionStatus: 'unanswered' },
      match: { operation: 'assistant' },
    });
    for (const view of ['feedback', 'searches', 'questions']) {
      const list = await insights(`${view} ${RANGE} top 1`, view);
      const said = shown(list);
      expect(said).toContain(masked);
      expect(JSON.stringify(list.args)).not.toMatch(/mint_3x|xoxb-12/);
    }
    const list = await insights(`feedback ${RANGE} top 1`, 'fb');
    const [draft] = drafts(list);
    if (!draft) throw new Error('no Draft a fix');
    const before = h.slack.callsTo('views.open').length;
    await h.interact(buttonClick(draft, { ephemeral: true }));
    const opened = await eventually(() => h.slack.callsTo('views.open')[before], 5_000, 'the Draft a fix form');
    const view = opened.args.view as Record<string, unknown>;
    expect(JSON.stringify(view)).not.toMatch(/mint_3x|xoxb-12/);
    expect(visible(view.blocks)).toContain(masked);
    await h.interact(viewSubmission(view, 'Explain where keys go.'));
    // Before, the evidence made the start refuse it as holding a key, which the person could not take out.
    const create = await eventually(() => h.creates()[0], 5_000, 'the job');
    expect((create.body as { prompt: string }).prompt).toContain(`> ${masked}`);
    expect(h.slack.callsTo('chat.postEphemeral').filter((c) => c.args.channel === CHANNEL_ID)).toEqual([]);
  });

  it('questions: a topic with mrkdwn’s marks and a line break stays on its row’s line, shown as written', async () => {
    always({
      kind: 'rows',
      set: { queryCategory: 'Using *args* and\n`mint dev` _flags_', resolutionStatus: 'unanswered' },
      match: { operation: 'assistant' },
    });
    const list = await insights(`questions ${RANGE} top 1`, 'qu');
    const blocks = list.args.blocks as { text?: { text?: string } }[];
    const row = blocks.map((block) => block.text?.text ?? '').find((text) => text.startsWith('*1.*'));
    expect(row?.split('\n')[0]).toMatch(/^\*1\.\* `Using \*args\* and 'mint dev' _flags_` · [\d,]+ unanswered$/);
  });

  it('Download CSV: long multi-line questions and empty topics stay one cell each, whole', async () => {
    always({
      kind: 'rows',
      set: { queryCategory: null, query: LONG_COMMENT, resolutionStatus: 'unanswered', pageUrl: null },
      match: { operation: 'assistant' },
    });
    const list = await insights(`questions ${RANGE} top 2`, 'qu');
    const [csv] = buttonsIn(list.args.blocks)
      .map(({ button }) => button)
      .filter((button) => button.action_id === 'insights.csv');
    if (!csv) throw new Error('no Download CSV');
    await h.interact(buttonClick(csv, { ephemeral: true, responseUrl: h.slack.responseUrl('csv') }));
    await eventually(() => h.slack.callsTo('files.completeUploadExternal')[0], 10_000, 'upload');
    const content = await uploadedText(String(h.slack.callsTo('file_upload')[0]?.args.content));
    const [head, first] = content.split('\r\n');
    expect(head).toBe('asked_at,topic,question,sources_tried,page_url');
    expect(first).toContain('"First line *bold*');
    expect(content).toContain('THE END"');
  });
});
