import { describe, expect, it } from 'vitest';
import { ChannelView, messageKey, type SlackRecord } from '../../../tools/playground/channel.js';

function record() {
  const slack = {
    calls: [] as { method: string; args: Record<string, unknown> }[],
    messages: [] as SlackRecord['messages'][number][],
    ephemerals: [] as SlackRecord['ephemerals'][number][],
  };
  const view = new ChannelView(slack, { user: (id) => ({ U1: 'alice', U2: 'bob' })[id] });
  return { slack, view };
}

describe('ChannelView', () => {
  it('shows posts with their author, updates them in place, counts replies and drops deleted ones', () => {
    const { slack, view } = record();
    slack.messages.push({ channel: 'C1', ts: '1.1', user: 'UBOT', bot_id: 'B', text: '*Working*' });
    slack.messages.push({ channel: 'C1', ts: '1.2', user: 'U1', text: 'reply', thread_ts: '1.1' });
    slack.messages.push({ channel: 'C1', ts: '1.3', user: 'UBOT', bot_id: 'B', text: 'gone soon' });
    const first = view.messages('U1');
    expect(first.map((m) => [m.author, m.bot, m.replies])).toEqual([
      ['Mintlify', true, 1],
      ['alice', false, 0],
      ['Mintlify', true, 0],
    ]);
    expect(first[0]?.html).toContain('<strong>Working</strong>');

    (slack.messages[0] as { text?: string }).text = '*Done*';
    slack.calls.push({ method: 'chat.delete', args: { channel: 'C1', ts: '1.3' } });
    const second = view.messages('U1');
    expect(second.map((m) => m.key)).toEqual([messageKey('C1', '1.1'), messageKey('C1', '1.2')]);
    expect(second[0]?.html).toContain('<strong>Done</strong>');
  });

  it('shows ephemerals only to the person they are for', () => {
    const { slack, view } = record();
    slack.ephemerals.push({ channel: 'C1', user: 'U2', ts: '2.1', text: 'for bob' });
    slack.ephemerals.push({ channel: 'C1', user: 'U1', ts: '2.2', text: 'for alice' });
    const seen = view.messages('U1');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ ephemeral: true, html: expect.stringContaining('for alice') });
  });

  it('adds and removes reactions (👀 → ✅)', () => {
    const { slack, view } = record();
    slack.messages.push({ channel: 'C1', ts: '1.1', user: 'U1', text: 'please' });
    const react = (method: string, name: string) =>
      slack.calls.push({ method, args: { channel: 'C1', timestamp: '1.1', name } });
    react('reactions.add', 'eyes');
    expect(view.messages('U1')[0]?.reactions).toEqual([{ name: 'eyes', emoji: '👀', count: 1 }]);
    react('reactions.remove', 'eyes');
    react('reactions.add', 'white_check_mark');
    expect(view.messages('U1')[0]?.reactions).toEqual([{ name: 'white_check_mark', emoji: '✅', count: 1 }]);
  });

  it('answers a response_url privately, replaces the clicked message in place, shares in_channel, deletes', () => {
    const { slack, view } = record();
    view.expectResponse('cmd', { channel: 'C1', user: 'U1' });
    slack.calls.push({ method: 'response_url:cmd', args: { text: 'page 1', response_type: 'ephemeral' } });
    const [report] = view.messages('U1');
    expect(report).toMatchObject({ ephemeral: true, html: expect.stringContaining('page 1') });
    expect(view.messages('U2')).toHaveLength(0);

    view.expectResponse('next', { channel: 'C1', user: 'U1', original: report?.key });
    slack.calls.push({ method: 'response_url:next', args: { text: 'page 2', replace_original: true } });
    const replaced = view.messages('U1');
    expect(replaced).toHaveLength(1);
    expect(replaced[0]).toMatchObject({ key: report?.key, html: expect.stringContaining('page 2') });

    view.expectResponse('share', { channel: 'C1', user: 'U1', original: report?.key });
    slack.calls.push({ method: 'response_url:share', args: { text: 'for all', response_type: 'in_channel' } });
    expect(view.messages('U2')).toEqual([
      expect.objectContaining({ ephemeral: false, html: expect.stringContaining('for all') }),
    ]);

    view.expectResponse('close', { channel: 'C1', user: 'U1', original: report?.key });
    slack.calls.push({ method: 'response_url:close', args: { delete_original: true } });
    expect(view.messages('U1').map((m) => m.html)).toEqual([expect.stringContaining('for all')]);
  });

  it('shows a command’s direct reply: privately by default, to everyone when in_channel; nothing for another id', () => {
    const { view } = record();
    view.expectResponse('help', { channel: 'C1', user: 'U1' });
    view.directReply('help', { text: 'usage', response_type: 'ephemeral' });
    view.expectResponse('shout', { channel: 'C1', user: 'U1' });
    view.directReply('shout', { text: 'for all', response_type: 'in_channel' });
    view.directReply('unknown', { text: 'lost' });
    expect(view.messages('U1')).toEqual([
      expect.objectContaining({ bot: true, ephemeral: true, html: expect.stringContaining('usage') }),
      expect.objectContaining({ bot: true, ephemeral: false, html: expect.stringContaining('for all') }),
    ]);
    expect(view.messages('U2').map((m) => m.html)).toEqual([expect.stringContaining('for all')]);
  });

  it('links uploaded files; CSV files download, images show', () => {
    const { slack, view } = record();
    slack.messages.push({
      channel: 'C1',
      ts: '1.1',
      user: 'UBOT',
      bot_id: 'B',
      files: [
        { id: 'F1', name: 'visitors.csv', title: 'Visitors' },
        { id: 'F2', name: 'chart.png', title: 'Chart' },
      ],
    });
    expect(view.messages('U1')[0]?.files).toEqual([
      { id: 'F1', name: 'visitors.csv', title: 'Visitors', url: '/files/F1', image: false },
      { id: 'F2', name: 'chart.png', title: 'Chart', url: '/files/F2', image: true },
    ]);
  });
});
