import { describe, expect, it } from 'vitest';
import { payloadOf, removalEventOf } from '../../../src/slack/payload.js';

describe('payloadOf: any body Slack sends, as the middlewares read it', () => {
  it('reads a command, an event and a click by their documented fields', () => {
    expect(payloadOf({ command: '/agent', text: 'Fix <b>', user_id: 'U1', channel_id: 'C1' })).toMatchObject({
      command: '/agent',
      text: 'Fix <b>',
      user_id: 'U1',
      channel_id: 'C1',
    });
    const event = { type: 'message', user: 'U1', channel: 'D1', channel_type: 'im', ts: '1.2', text: 'hi' };
    expect(payloadOf({ type: 'event_callback', event }).event).toEqual(event);
    expect(
      payloadOf({ type: 'block_actions', user: { id: 'U1', team_id: 'T1' }, container: { channel_id: 'C1' } }),
    ).toMatchObject({ user: { id: 'U1', team_id: 'T1' }, container: { channel_id: 'C1' } });
  });

  it('reads a field of another shape, or an empty id, as absent instead of failing', () => {
    const odd = payloadOf({ type: 'event_callback', event: { user: { id: 'U1' }, channel: '' }, actions: 'none' });
    expect(odd.event?.user).toBeUndefined();
    expect(odd.event?.channel).toBeUndefined();
    expect(odd.actions).toBeUndefined();
    expect(payloadOf('not an object')).toEqual({});
  });

  it('reads the claims of a removal event', () => {
    expect(removalEventOf({ type: 'tokens_revoked', tokens: { bot: ['UBOT'], oauth: ['U1'] } })).toMatchObject({
      tokens: { bot: ['UBOT'] },
    });
    expect(removalEventOf({ type: 'team_access_revoked', team_ids: ['T1', 'T2'] }).team_ids).toEqual(['T1', 'T2']);
    expect(removalEventOf({ type: 'tokens_revoked', tokens: 'x' }).tokens).toBeUndefined();
  });
});
