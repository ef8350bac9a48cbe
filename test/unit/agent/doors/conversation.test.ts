import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { mention, message } from '../../../../src/agent/doors/conversation.js';
import type { AccessRule } from '../../../../src/slack/access.js';
import { reportBeside } from '../../../../src/visitors/doors/report-beside.js';
import { say } from '../../../fakes/fake-slack-api.js';
import { CHANNEL_ID, USER_ID } from '../../../fixtures/slack.js';
import { contextFor, useAgentUnit } from '../support.js';

type MessageArgs = SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs;
const OPEN: AccessRule = { allowedUsers: [], allowedChannels: [] };
const DM = 'DALICE';

describe('the conversational doors', () => {
  const unit = useAgentUnit();

  /**
   * `USER_ID` types `typed` in `channel` (a thread when given); Slack's events reach the doors as the app registers
   * them: `app_mention` the mention door, `message` the message door (a DM's, or a channel's).
   */
  async function deliver(typed: string, where: { channel?: string; threadTs?: string } = {}, rule = OPEN) {
    const { events } = say(unit().slack, USER_ID, where.channel ?? CHANNEL_ID, typed, where);
    for (const body of events) {
      const args = { event: body.event, body, context: await contextFor(rule, body) } as unknown as MessageArgs;
      if (body.event.type === 'app_mention') await mention(unit().deps, args as never);
      else await message(unit().deps, args, reportBeside);
    }
    return unit().handed;
  }

  it('a mention hands on one turn, addressed, its text decoded and the bot’s mention removed', async () => {
    const handed = await deliver('@mintlify document <retries> & ask @bob');
    expect(handed).toEqual([
      {
        kind: 'agent.turn',
        data: expect.objectContaining({
          channel: CHANNEL_ID,
          userId: USER_ID,
          text: 'document <retries> & ask @Bob Lee',
          addressed: true,
          allowed: true,
          botUserId: 'UBOT',
          eventId: expect.stringMatching(/^Ev/),
          clientMsgId: expect.any(String),
        }),
      },
    ]);
  });

  it('a direct message is addressed', async () => {
    expect(await deliver('Document the CLI', { channel: DM })).toEqual([
      { kind: 'agent.turn', data: expect.objectContaining({ channel: DM, text: 'Document the CLI', addressed: true }) },
    ]);
  });

  it('a reply in a channel thread is handed on unaddressed; a top-level message is not; a mention once', async () => {
    await deliver('hello there');
    expect(unit().handed).toEqual([]);
    await deliver('@mintlify do it', { threadTs: '1700000000.000100' });
    expect(unit().handed).toEqual([{ kind: 'agent.turn', data: expect.objectContaining({ addressed: true }) }]);
    unit().handed.length = 0;
    await deliver('Also the example', { threadTs: '1700000000.000100' });
    expect(unit().handed).toEqual([
      {
        kind: 'agent.turn',
        data: expect.objectContaining({ threadTs: '1700000000.000100', text: 'Also the example', addressed: false }),
      },
    ]);
  });

  it('carries the access verdict as data, so only a message that concerns the bot is refused', async () => {
    await deliver('@mintlify do it', {}, { allowedUsers: ['USOMEONE'], allowedChannels: [] });
    expect(unit().handed[0]?.data).toMatchObject({ allowed: false });
  });

  it('hands on nothing for the bot’s own messages, edits or bots', async () => {
    const context = await contextFor(OPEN, {});
    for (const event of [
      { type: 'message', channel: CHANNEL_ID, user: 'UBOT', ts: '2.0', thread_ts: '1.0', text: 'status' },
      { type: 'message', subtype: 'message_changed', channel: CHANNEL_ID, ts: '2.0', thread_ts: '1.0' },
      { type: 'message', bot_id: 'B9', channel: CHANNEL_ID, user: 'U9', ts: '2.0', thread_ts: '1.0', text: 'x' },
    ]) {
      const args = { event, body: { event_id: 'Ev1', event }, context };
      await message(unit().deps, args as unknown as MessageArgs, reportBeside);
      await message(
        unit().deps,
        { ...args, event: { ...event, channel: DM, channel_type: 'im' } } as unknown as MessageArgs,
        reportBeside,
      );
    }
    expect(unit().handed).toEqual([]);
  });
});
