import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../src/slack/message.js';
import { createReplies, type Replies } from '../../../src/slack/reply.js';
import { type FakeSlackApi, startFakeSlackApi } from '../../fakes/fake-slack-api.js';
import { CHANNEL_ID, USER_ID } from '../../fixtures/slack.js';
import { captureLogs } from '../../support/logs.js';

const NOTE = { text: 'Only you can see this' };

describe('replies: the one way people are answered', () => {
  let slack: FakeSlackApi;
  let replies: Replies;
  let logs: ReturnType<typeof captureLogs>;

  beforeEach(async () => {
    slack = await startFakeSlackApi();
    logs = captureLogs();
    const client = new webApi.WebClient(slack.workspace.botToken, {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
    });
    replies = createReplies({ slack: client, log: logs.log });
  });
  afterEach(() => slack.close());

  it('answers privately through response_url when Slack gave one, as a new ephemeral message', async () => {
    await replies.privately({ userId: USER_ID, channel: CHANNEL_ID, responseUrl: slack.responseUrl('cmd') }, NOTE);
    expect(slack.callsTo('response_url:cmd').map((c) => c.args)).toEqual([
      { response_type: 'ephemeral', replace_original: false, text: NOTE.text },
    ]);
    expect(slack.callsTo('chat.postEphemeral')).toHaveLength(0);
  });

  it('answers with an ephemeral in the thread the person wrote in when there is no response_url', async () => {
    await replies.privately({ userId: USER_ID, channel: CHANNEL_ID, threadTs: '1700000000.000100' }, NOTE);
    expect(slack.callsTo('chat.postEphemeral')[0]?.args).toMatchObject({
      channel: CHANNEL_ID,
      user: USER_ID,
      thread_ts: '1700000000.000100',
      text: NOTE.text,
    });
  });

  it('falls back to the bot’s DM with the person when it cannot post in their conversation', async () => {
    slack.fail('chat.postEphemeral', { error: 'not_in_channel' });
    await replies.privately({ userId: USER_ID, channel: CHANNEL_ID }, NOTE);
    expect(slack.callsTo('chat.postMessage')[0]?.args).toMatchObject({ channel: USER_ID, text: NOTE.text });
    expect(logs.text()).toContain('"slack_error":"not_in_channel"');
  });

  it('falls back to an ephemeral when response_url refuses (expired), and never throws', async () => {
    slack.fail('response_url:old', { status: 503 }, Number.POSITIVE_INFINITY);
    await replies.privately({ userId: USER_ID, channel: CHANNEL_ID, responseUrl: slack.responseUrl('old') }, NOTE);
    expect(slack.callsTo('chat.postEphemeral')).toHaveLength(1);
  });

  it('says the words alone when Slack refuses the blocks everywhere (invalid_blocks), so the person still hears', async () => {
    const button = {
      type: 'button',
      action_id: 'a',
      text: { type: 'plain_text', text: 'Go' },
      value: 'v'.repeat(2001),
    } as const;
    const blocks: Message['blocks'] = [
      { type: 'section', text: { type: 'mrkdwn', text: 'The list' }, accessory: button },
    ];
    await replies.privately(
      { userId: USER_ID, channel: CHANNEL_ID, responseUrl: slack.responseUrl('big') },
      { text: 'The list (3 rows)', blocks },
    );
    const said = slack.calls.filter((c) => c.method === 'response_url:big' || c.method.startsWith('chat.'));
    expect(said.at(-1)?.args).toMatchObject({ text: 'The list (3 rows)' });
    expect(said.at(-1)?.args.blocks).toBeUndefined();
    expect(said.length).toBeGreaterThan(1);
    expect(logs.text()).toContain('invalid_blocks');
  });

  it('replaces the original message through response_url', async () => {
    expect(await replies.replace(slack.responseUrl('btn'), NOTE)).toBe(true);
    expect(slack.callsTo('response_url:btn')[0]?.args).toEqual({ replace_original: true, text: NOTE.text });
  });

  it('adds and removes reactions, logging a refusal instead of throwing', async () => {
    const message = { channel: CHANNEL_ID, ts: '1700000000.000200' };
    await replies.react(message, 'eyes');
    await replies.unreact(message, 'eyes');
    slack.fail('reactions.add', { error: 'already_reacted' });
    await replies.react(message, 'eyes');
    expect(slack.callsTo('reactions.add')).toHaveLength(2);
    expect(slack.callsTo('reactions.remove')[0]?.args).toMatchObject({ name: 'eyes', timestamp: message.ts });
    expect(logs.text()).toContain('already_reacted');
  });
});
