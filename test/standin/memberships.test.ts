import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackStandin, startSlackStandin } from '../../tools/slack-standin/index.js';

/**
 * `users.conversations` and `conversations.history` with metadata, as the app reads them back to heal a store that
 * lost its data: the conversations the bot is a member of, by type, in pages; each message's metadata only when
 * `include_all_metadata` asks for it.
 */
describe('Slack stand-in: users.conversations and history with metadata', () => {
  let slack: SlackStandin;
  const clientFor = (token: string) =>
    new webApi.WebClient(token, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  const bot = () => clientFor(slack.workspace.botToken);

  beforeAll(async () => {
    slack = await startSlackStandin();
    slack.workspace.channels.push(
      { id: 'G123SECRET', name: 'secret' },
      { id: 'C567NOBOT', name: 'no-bot', botMember: false },
      { id: 'C678OLD', name: 'old', archived: true },
      { id: 'D0ALICEBOB', name: 'alice-bob', botMember: false },
    );
  });
  afterAll(() => slack.close());

  const ids = (answer: { channels?: { id?: string }[] }) => (answer.channels ?? []).map((c) => c.id);

  it('lists public channels the bot is in by default; private ones when asked; never one it is not in', async () => {
    const publicOnly = await bot().users.conversations({});
    expect(ids(publicOnly)).toEqual(['C123DOCS', 'C234GENERAL', 'C345RANDOM', 'C456PARTNERS', 'C678OLD']);
    const both = await bot().users.conversations({ types: 'public_channel,private_channel', exclude_archived: true });
    expect(ids(both)).toContain('G123SECRET');
    expect(ids(both)).not.toContain('C567NOBOT');
    expect(ids(both)).not.toContain('C678OLD');
    expect(both.channels?.find((c) => c.id === 'G123SECRET')).toMatchObject({ is_private: true, is_group: true });
  });

  it('pages with limit and next_cursor until the cursor is empty', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await bot().users.conversations({ types: 'public_channel', limit: 2, ...(cursor && { cursor }) });
      seen.push(...(ids(page) as string[]));
      cursor = page.response_metadata?.next_cursor || undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(['C123DOCS', 'C234GENERAL', 'C345RANDOM', 'C456PARTNERS', 'C678OLD']);
  });

  it('refuses unknown types, a limit over 1000 and a bad cursor with Slack’s errors', async () => {
    await expect(bot().users.conversations({ types: 'public_channel,rooms' })).rejects.toMatchObject({
      data: { ok: false, error: 'invalid_types' },
    });
    await expect(bot().users.conversations({ limit: 1001 })).rejects.toMatchObject({
      data: { error: 'invalid_limit' },
    });
    await expect(bot().users.conversations({ cursor: 'nonsense' })).rejects.toMatchObject({
      data: { error: 'invalid_cursor' },
    });
  });

  it('needs the read scope of every type asked for: DMs need im:read, which the app’s manifest does not grant', async () => {
    await expect(bot().users.conversations({ types: 'public_channel,im' })).rejects.toMatchObject({
      data: { error: 'missing_scope', needed: 'im:read' },
    });
    slack.acceptToken('xoxb-public-read', 'bot', undefined, ['channels:read']);
    const narrow = clientFor('xoxb-public-read');
    await expect(narrow.users.conversations({ types: 'public_channel' })).resolves.toMatchObject({ ok: true });
    await expect(narrow.users.conversations({ types: 'private_channel' })).rejects.toMatchObject({
      data: { error: 'missing_scope', needed: 'groups:read' },
    });
  });

  it('conversations.history returns metadata only with include_all_metadata, newest first, from oldest on', async () => {
    const posted = await bot().chat.postMessage({
      channel: 'C345RANDOM',
      text: 'Working',
      metadata: { event_type: 'mintlify_agent_job', event_payload: { job_id: 'job_1' } },
    });
    await bot().chat.postMessage({ channel: 'C345RANDOM', text: 'Later' });
    const plain = await bot().conversations.history({ channel: 'C345RANDOM' });
    expect(plain.messages?.[1]).not.toHaveProperty('metadata');
    const withMetadata = await bot().conversations.history({ channel: 'C345RANDOM', include_all_metadata: true });
    expect(withMetadata.messages?.map((m) => m.text)).toEqual(['Later', 'Working']);
    expect(withMetadata.messages?.[1]?.metadata).toEqual({
      event_type: 'mintlify_agent_job',
      event_payload: { job_id: 'job_1' },
    });
    const newer = await bot().conversations.history({ channel: 'C345RANDOM', oldest: String(posted.ts) });
    expect(newer.messages?.map((m) => m.text)).toEqual(['Later']);
  });

  it('refuses the history of a channel the bot is not in (not_in_channel), of a DM not its own (channel_not_found)', async () => {
    const refusal = (channel: string) =>
      bot()
        .conversations.history({ channel })
        .then(
          () => 'ok',
          (error: { data?: { error?: string } }) => error.data?.error,
        );
    expect(await refusal('C567NOBOT')).toBe('not_in_channel');
    expect(await refusal('D0ALICEBOB')).toBe('channel_not_found');
    expect(await refusal('C123DOCS')).toBe('ok');
  });

  it('a message with replies carries its thread in the history: reply_count, reply_users, latest_reply', async () => {
    const parent = slack.people.says('U123ALICE', 'C234GENERAL', 'Who documents the webhooks?');
    const reply = await bot().chat.postMessage({ channel: 'C234GENERAL', thread_ts: parent.ts, text: 'On it' });
    const history = await bot().conversations.history({ channel: 'C234GENERAL' });
    const listed = history.messages?.find((m) => m.ts === parent.ts);
    expect(listed).toMatchObject({
      thread_ts: parent.ts,
      reply_count: 1,
      reply_users_count: 1,
      reply_users: [slack.workspace.botUserId],
      latest_reply: reply.ts,
    });
    expect(history.messages?.some((m) => m.ts === reply.ts)).toBe(false); // replies are not in the history
  });

  it('refuses a post or a shared file where the bot cannot post: not a member, a DM not its own, archived', async () => {
    const refusal = (channel: string) => bot().chat.postMessage({ channel, text: 'Report' });
    await expect(refusal('C567NOBOT')).rejects.toMatchObject({ data: { error: 'not_in_channel' } });
    await expect(refusal('D0ALICEBOB')).rejects.toMatchObject({ data: { error: 'channel_not_found' } });
    await expect(refusal('C678OLD')).rejects.toMatchObject({ data: { error: 'is_archived' } });
    await expect(
      bot().filesUploadV2({ channel_id: 'C567NOBOT', filename: 'a.csv', content: 'a,b\r\n' }),
    ).rejects.toMatchObject({ data: { error: 'not_in_channel' } });
    expect(slack.messages.filter((m) => ['C567NOBOT', 'D0ALICEBOB', 'C678OLD'].includes(m.channel))).toEqual([]);
  });

  it('refuses a post its posting settings forbid: any in a read-only channel, a top-level one in a thread-only one', async () => {
    slack.workspace.channels.push(
      { id: 'C0ANNOUNCE', name: 'announcements', posting: 'read_only' },
      { id: 'C0THREADS', name: 'threads-only', posting: 'thread_only' },
    );
    const post = (channel: string, thread_ts?: string) =>
      bot().chat.postMessage({ channel, text: 'Report', ...(thread_ts && { thread_ts }) });
    await expect(post('C0ANNOUNCE')).rejects.toMatchObject({ data: { error: 'restricted_action_read_only_channel' } });
    await expect(post('C0THREADS')).rejects.toMatchObject({ data: { error: 'restricted_action_thread_only_channel' } });
    const root = slack.people.says('U123ALICE', 'C0THREADS', 'Where is the report?');
    expect((await post('C0THREADS', root.ts)).ok).toBe(true);
  });

  it('sends a reply also sent to the channel as thread_broadcast: its root, and no parent_user_id', () => {
    const root = slack.people.says('U123ALICE', 'C123DOCS', 'Release notes');
    const said = slack.people.says('U456BOB', 'C123DOCS', 'Shipped', { threadTs: root.ts, broadcast: true });
    const event = said.events.at(-1)?.event as Record<string, unknown>;
    expect(event).toMatchObject({ subtype: 'thread_broadcast', thread_ts: root.ts });
    expect(event.root).toMatchObject({ user: 'U123ALICE', ts: root.ts, thread_ts: root.ts, reply_count: 1 });
    expect(event).not.toHaveProperty('parent_user_id');
    const plain = slack.people.says('U456BOB', 'C123DOCS', 'Also', { threadTs: root.ts }).events.at(-1)?.event;
    expect(plain).toMatchObject({ parent_user_id: 'U123ALICE' });
  });

  it('refuses an ephemeral where the bot cannot post, as its method reference lists (not only a post)', async () => {
    const refusal = (channel: string) => bot().chat.postEphemeral({ channel, user: 'U123ALICE', text: 'Only you' });
    await expect(refusal('C567NOBOT')).rejects.toMatchObject({ data: { error: 'not_in_channel' } });
    await expect(refusal('D0ALICEBOB')).rejects.toMatchObject({ data: { error: 'channel_not_found' } });
    await expect(refusal('C678OLD')).rejects.toMatchObject({ data: { error: 'is_archived' } });
    expect(slack.ephemerals.filter((m) => ['C567NOBOT', 'D0ALICEBOB', 'C678OLD'].includes(m.channel))).toEqual([]);
  });

  it('sends message events only from conversations the bot is in: its own DM, not a DM between two people', () => {
    // message.im is for "messages directed to your bot user in direct message conversations" (app_mention's
    // reference); a mention where the app is not party to the conversation sends no event.
    slack.workspace.channels.push({ id: 'D567ALICEBOB', name: 'directmessage', directMessage: true });
    const types = (said: { events: { event: Record<string, unknown> }[] }) => said.events.map((e) => e.event.type);
    const bot = `<@${slack.workspace.botUserId}>`;
    for (const dm of ['D567ALICEBOB', 'D0ALICEBOB']) {
      const said = slack.people.says('U123ALICE', dm, `${bot} lunch?`);
      expect(types(said)).toEqual([]);
      expect(types(slack.people.edits('U123ALICE', dm, said.ts, 'dinner?'))).toEqual([]);
      expect(types(slack.people.deletes('U123ALICE', dm, said.ts))).toEqual([]);
    }
    expect(types(slack.people.says('U123ALICE', 'C567NOBOT', `${bot} Document the CLI`))).toEqual([]);
    const own = slack.people.says('U123ALICE', 'DU123ALICE', 'Document the CLI');
    expect(own.events.map((e) => e.event)).toMatchObject([{ type: 'message', channel_type: 'im' }]);
  });
});
