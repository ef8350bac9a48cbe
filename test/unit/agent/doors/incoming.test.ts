import { describe, expect, it } from 'vitest';
import { toIncoming } from '../../../../src/agent/doors/incoming.js';

const reply = { channel: 'C1', user: 'U1', ts: '2.0', thread_ts: '1.0', text: 'more detail', client_msg_id: 'm1' };

describe('toIncoming (guard ladder)', () => {
  it('narrows a person’s reply in a thread', () => {
    expect(toIncoming(reply, 'UBOT')).toEqual({
      channel: 'C1',
      userId: 'U1',
      ts: '2.0',
      threadTs: '1.0',
      wireText: 'more detail',
      clientMsgId: 'm1',
      mentionsBot: false,
      files: [],
    });
  });

  it('keeps the files shared with a message as the agent needs them, leaving out deleted and hidden ones', () => {
    const files = [
      {
        id: 'F1',
        name: 'a.md',
        filetype: 'markdown',
        mode: 'snippet',
        size: 12,
        url_private: 'https://files.slack.com/a',
        permalink: 'https://acme.slack.com/files/a',
      },
      { id: 'F2', mode: 'tombstone' },
      { id: 'F3', title: 'Screenshot', mimetype: 'image/png', size: 'big' },
      { id: 'F4', mode: 'hidden_by_limit' },
      { id: 'F5', mode: 'file_access', file_access: 'check_file_info', created: 0, user: '' },
    ];
    expect(toIncoming({ ...reply, subtype: 'file_share', files }, 'UBOT')?.files).toEqual([
      {
        id: 'F1',
        name: 'a.md',
        filetype: 'markdown',
        mode: 'snippet',
        size: 12,
        urlPrivate: 'https://files.slack.com/a',
        permalink: 'https://acme.slack.com/files/a',
      },
      { id: 'F3', name: 'Screenshot', mimetype: 'image/png' },
      // A Slack Connect channel's file: only its id, for files.info.
      { id: 'F5', name: 'F5', mode: 'file_access', askInfo: true },
    ]);
  });

  it('has no thread for a top-level message or a thread’s root', () => {
    expect(toIncoming({ ...reply, thread_ts: undefined })?.threadTs).toBeUndefined();
    expect(toIncoming({ ...reply, thread_ts: '2.0' })?.threadTs).toBeUndefined();
  });

  it('removes the bot’s own mention, wherever it is, and says it was there', () => {
    const narrowed = toIncoming({ ...reply, text: '<@UBOT> document <@U2> and <@UBOT|mintlify>  now' }, 'UBOT');
    expect(narrowed).toMatchObject({ wireText: 'document <@U2> and now', mentionsBot: true });
    expect(toIncoming({ ...reply, text: '<@UBOT>' }, 'UBOT')).toMatchObject({ wireText: '', mentionsBot: true });
  });

  it('keeps every other blank as typed: indentation, aligned columns, a mention alone on its line', () => {
    const code = '```\nretry:\n  attempts: 3\n\tmax:   30s\n```';
    expect(toIncoming({ ...reply, text: `<@UBOT> document this:\n${code}` }, 'UBOT')?.wireText).toBe(
      `document this:\n${code}`,
    );
    expect(toIncoming({ ...reply, text: `document this:\n<@UBOT>\n${code}` }, 'UBOT')?.wireText).toBe(
      `document this:\n\n${code}`,
    );
    expect(toIncoming({ ...reply, text: `a  b <@UBOT>` }, 'UBOT')?.wireText).toBe('a  b');
    expect(toIncoming({ ...reply, text: `x<@UBOT>y` }, 'UBOT')?.wireText).toBe('x y');
  });

  it('keeps replies also sent to the channel and files shared without text', () => {
    expect(toIncoming({ ...reply, subtype: 'thread_broadcast' })).toBeDefined();
    expect(toIncoming({ ...reply, subtype: 'file_share', text: undefined })?.wireText).toBe('');
  });

  it.each([
    ['an edit', { subtype: 'message_changed' }],
    ['a mention sent again for its edit', { edited: { user: 'U1', ts: '3.0' } }],
    ['a deletion', { subtype: 'message_deleted' }],
    ['a bot message', { subtype: 'bot_message' }],
    ['another bot', { bot_id: 'B1' }],
    ['the bot itself', { user: 'UBOT' }],
    ['a channel join', { subtype: 'channel_join' }],
    ['no user', { user: undefined }],
    ['no channel', { channel: undefined }],
  ])('ignores %s', (_name, overrides) => {
    expect(toIncoming({ ...reply, ...overrides }, 'UBOT')).toBeUndefined();
  });
});
