import { beforeEach, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/visitors/blocks.js';
import type { Fault } from '../../tools/simulator/server.js';
import { blockKitProblems, DATA_BLOCK_TYPES } from '../../tools/slack-standin/index.js';
import type { SlackCall } from '../fakes/fake-slack-api.js';
import { blockAction, CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { eventually } from '../support/test-app.js';
import { wireProblems } from '../support/wire-safety.js';

// /visitors with what the analytics document allows that the simulator's seed data never sends (its `rows`
// switch): paths with | > & < or a URL, rows of zero visitors, huge counts. Shown as written, escaped, never refused.

const ODD_PATH = '/guides/a|b>c&d<e';
const URL_PATH = 'https://docs.example.com/guides/x?y=1&z=2';
const HUGE = 1e15;
/** A page whose path (the service's to write) reads as a broadcast and a mention. */
const BROADCAST_PATH = '/x <!channel> <@U1> & y';

/** Every text a person reads in blocks (data table cells included), joined. */
const visible = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : Array.isArray(value)
      ? value.map(visible).join('\n')
      : value && typeof value === 'object'
        ? Object.entries(value)
            .filter(([key, inner]) => key === 'text' || typeof inner === 'object')
            .map(([, inner]) => visible(inner))
            .join('\n')
        : '';

describe.each(storeKinds)('/visitors with every shape the document allows ($label)', (store) => {
  const h = useHarness({ store, simulator: { pathCount: 300 }, boot: true });
  beforeEach(() => {
    h.slack.zones.set(USER_ID, 'UTC');
    const always = (fault: Omit<Extract<Fault, { kind: 'rows' }>, 'count'>) =>
      h.sim.injectFault({ ...fault, count: Number.POSITIVE_INFINITY });
    always({
      kind: 'rows',
      set: { human: 0, ai: 0, total: 0 },
      answer: { totals: { human: HUGE, ai: HUGE, total: HUGE } },
      match: { operation: 'visitors' },
    });
    always({
      kind: 'rows',
      set: { human: HUGE, ai: HUGE / 2, total: HUGE },
      first: 3,
      match: { operation: 'visitors' },
    });
    always({ kind: 'rows', set: { path: URL_PATH }, first: 2, match: { operation: 'visitors' } });
    always({ kind: 'rows', set: { path: ODD_PATH }, first: 1, match: { operation: 'visitors' } });
  });

  async function report(text: string): Promise<SlackCall> {
    const { ack } = await h.command(`/visitors ${text}`, { responseId: 'cmd' });
    expect(ack).toBeUndefined();
    return h.answer('cmd');
  }

  /** The Share button's value on a report. */
  const shareValue = (call: SlackCall) =>
    String(
      (call.args.blocks as { elements?: { action_id?: string; value?: string }[] }[])
        .flatMap((b) => b.elements ?? [])
        .find((e) => e.action_id === ACTION_IDS.share)?.value,
    );
  /** The reports shared in the channel, oldest first. */
  const shared = () => h.slack.messages.filter((m) => m.channel === CHANNEL_ID && !m.thread_ts);

  function expectShownWell(call: SlackCall): string {
    expect(blockKitProblems(call.args.blocks ?? [])).toEqual([]);
    const said = visible(call.args.blocks);
    expect(said.match(/<[@!#][^>]*>/g) ?? []).toEqual([]);
    expect(said).not.toMatch(/NaN|Infinity|undefined/);
    return said;
  }

  it('as the data table: odd paths as written, zero rows, huge counts', async () => {
    const reply = await report('2026-11-01 2026-11-08');
    const said = expectShownWell(reply);
    // A data table's raw_text cell is plain text: as the service wrote it (a long one cut in its middle).
    expect(said).toContain(ODD_PATH);
    expect(said).toContain('/guides/x?y=1&z=2');
  });

  it('Share to channel of a page titled with a broadcast and markup pings nobody, as the table and as text', async () => {
    h.sim.injectFault({
      kind: 'rows',
      set: { path: BROADCAST_PATH },
      first: 1,
      count: Number.POSITIVE_INFINITY,
      match: { operation: 'visitors' },
    });
    const reply = await report('2026-11-01 2026-11-08');
    const value = shareValue(reply);
    await h.interact(blockAction(ACTION_IDS.share, value, { response_url: h.slack.responseUrl('share') }));
    const asTable = await eventually(() => shared()[0], 5_000, 'the shared report');
    expect(wireProblems(JSON.stringify(asTable.blocks))).toEqual([]);
    expect(visible(asTable.blocks)).not.toMatch(/<!channel>|<@U1>/);
    h.slack.refuseBlocks(DATA_BLOCK_TYPES);
    await h.interact(blockAction(ACTION_IDS.share, value.replace('"limit":10', '"limit":11')));
    const asText = await eventually(() => shared()[1], 5_000, 'the shared report as text');
    expect(visible(asText.blocks)).toContain('&lt;!channel&gt;');
    expect(wireProblems(visible(asText.blocks))).toEqual([]);
  });

  it('as the text table: odd paths escaped inside the code block, zero rows, huge counts', async () => {
    const said = expectShownWell(await report('2026-10-01..2026-11-20 top 150'));
    expect(said).toContain('/guides/a|b&gt;c&amp;d&lt;e');
  });
});
