import { describe, expect, it } from 'vitest';
import { toThreadReply } from '../../../src/agent/thread-reply.js';

const reply = { channel: 'C1', user: 'U1', ts: '2.0', thread_ts: '1.0', text: 'more detail' };

describe('toThreadReply (guard ladder)', () => {
  it('narrows a person reply in a thread', () => {
    expect(toThreadReply(reply)).toEqual({
      channel: 'C1',
      userId: 'U1',
      ts: '2.0',
      threadTs: '1.0',
      text: 'more detail',
    });
  });

  it('keeps replies also sent to the channel', () => {
    expect(toThreadReply({ ...reply, subtype: 'thread_broadcast' })).toBeDefined();
  });

  it.each([
    ['an edit', { subtype: 'message_changed' }],
    ['a deletion', { subtype: 'message_deleted' }],
    ['a bot message', { subtype: 'bot_message' }],
    ['another bot', { bot_id: 'B1' }],
    ['a channel join', { subtype: 'channel_join' }],
    ['no thread', { thread_ts: undefined }],
    ['the root message', { thread_ts: '2.0' }],
    ['no user', { user: undefined }],
    ['empty text', { text: '   ' }],
  ])('ignores %s', (_name, overrides) => {
    expect(toThreadReply({ ...reply, ...overrides })).toBeUndefined();
  });
});
