import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCK_KIT_LIMITS, type SlackStandin, startSlackStandin } from '../../tools/slack-standin/index.js';

/** The stand-in answers like Slack does, through Slack's own Web API client. */
describe('Slack stand-in: Web API', () => {
  let slack: SlackStandin;
  let client: webApi.WebClient;
  const clientFor = (token: string) =>
    new webApi.WebClient(token, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });

  beforeAll(async () => {
    slack = await startSlackStandin();
    client = clientFor(slack.workspace.botToken);
  });
  afterAll(() => slack.close());

  /** Posts a top-level message in #docs; its ts, to thread under. */
  async function postRoot(text: string): Promise<string> {
    const { ts } = await client.chat.postMessage({ channel: 'C123DOCS', text });
    if (!ts) throw new Error('chat.postMessage answered without a ts');
    return ts;
  }

  it('answers auth.test per token: the bot for its token, invalid_auth for an unknown one, the refusal given', async () => {
    await expect(client.auth.test()).resolves.toMatchObject({ ok: true, user_id: 'UBOT', bot_id: 'BBOT' });
    await expect(clientFor('xoxb-unknown').auth.test()).rejects.toMatchObject({ data: { error: 'invalid_auth' } });
    slack.acceptToken('xoxb-soon-revoked');
    slack.refuseToken('xoxb-soon-revoked', 'token_revoked');
    await expect(clientFor('xoxb-soon-revoked').auth.test()).rejects.toMatchObject({
      data: { error: 'token_revoked' },
    });
    await expect(
      clientFor(slack.workspace.appToken).chat.postMessage({ channel: 'C1', text: 'x' }),
    ).rejects.toMatchObject({ data: { error: 'not_allowed_token_type' } });
  });

  it('takes the token from the Authorization header or the body, never from the query string', async () => {
    const asForm = (body: string, query = '') =>
      fetch(`${slack.apiUrl}auth.test${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      }).then((r) => r.json());
    await expect(asForm(`token=${slack.workspace.botToken}`)).resolves.toMatchObject({ ok: true, team_id: 'T1' });
    await expect(asForm('', `?token=${slack.workspace.botToken}`)).resolves.toEqual({ ok: false, error: 'not_authed' });
  });

  it('resolves users with their display names, user_not_found otherwise', async () => {
    const { user } = await client.users.info({ user: 'U456BOB' });
    expect(user?.profile?.display_name).toBe('Bob Lee');
    await expect(client.users.info({ user: 'UNOBODY' })).rejects.toMatchObject({ data: { error: 'user_not_found' } });
  });

  it('stores messages and reads them back with their metadata, a thread root first', async () => {
    const root = await postRoot('root');
    const metadata = { event_type: 'note', event_payload: { n: 1 } };
    await client.chat.postMessage({ channel: 'C123DOCS', thread_ts: root, text: 'reply', metadata });
    await client.chat.update({ channel: 'C123DOCS', ts: root, text: 'root, edited' });
    const replies = await client.conversations.replies({ channel: 'C123DOCS', ts: root, include_all_metadata: true });
    expect(replies.messages?.map((m) => m.text)).toEqual(['root, edited', 'reply']);
    expect(replies.messages?.[1]?.metadata).toEqual(metadata);
    await expect(client.chat.update({ channel: 'C123DOCS', ts: '1.000', text: 'x' })).rejects.toMatchObject({
      data: { error: 'message_not_found' },
    });
  });

  it('refuses chat.update as Slack does: another’s message, an archived channel, text over 4,000 characters', async () => {
    const refusal = (args: { channel: string; ts: string; text: string }) =>
      client.chat.update(args).then(
        () => 'ok',
        (error: { data?: { error?: string } }) => error.data?.error,
      );
    const theirs = slack.people.says('U456BOB', 'C123DOCS', 'Our docs need a glossary').ts;
    expect(await refusal({ channel: 'C123DOCS', ts: theirs, text: 'edited by the bot' })).toBe('cant_update_message');
    const ts = await postRoot('Working…');
    expect(await refusal({ channel: 'C123DOCS', ts, text: 'x'.repeat(4_001) })).toBe('msg_too_long');
    expect(await refusal({ channel: 'C123DOCS', ts, text: 'x'.repeat(4_000) })).toBe('ok');
    const { ts: archivedTs } = await client.chat.postMessage({ channel: 'C345RANDOM', text: 'Working…' });
    const random = slack.workspace.channels.find((c) => c.id === 'C345RANDOM');
    if (random) random.archived = true;
    try {
      expect(await refusal({ channel: 'C345RANDOM', ts: String(archivedTs), text: 'Done' })).toBe('is_inactive');
    } finally {
      if (random) random.archived = false;
    }
  });

  it('keeps the bot’s reactions on a message: already_reacted twice, no_reaction for one it never added', async () => {
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => 'ok',
        (error: { data?: { error?: string } }) => error.data?.error,
      );
    const { ts } = slack.people.says('U456BOB', 'C123DOCS', 'Can someone document the CLI?');
    const at = { channel: 'C123DOCS', timestamp: ts };
    expect(await refusal(client.reactions.remove({ ...at, name: 'eyes' }))).toBe('no_reaction');
    expect(slack.tenant().message('C123DOCS', ts)).not.toHaveProperty('reactions');
    expect(await refusal(client.reactions.add({ ...at, name: 'eyes' }))).toBe('ok');
    expect(await refusal(client.reactions.add({ ...at, name: 'eyes' }))).toBe('already_reacted');
    const history = await client.conversations.history({ channel: 'C123DOCS', limit: 1 });
    expect(history.messages?.[0]?.reactions).toEqual([{ name: 'eyes', users: ['UBOT'], count: 1 }]);
    expect(await refusal(client.reactions.remove({ ...at, name: 'white_check_mark' }))).toBe('no_reaction');
    expect(await refusal(client.reactions.remove({ ...at, name: 'eyes' }))).toBe('ok');
    expect(slack.tenant().message('C123DOCS', ts)?.reactions).toBeUndefined();
    expect(await refusal(client.reactions.add({ channel: 'C123DOCS', timestamp: '1.000001', name: 'eyes' }))).toBe(
      'message_not_found',
    );
  });

  it('truncates a post’s text past 40,000 characters, with Slack’s message_truncated warning', async () => {
    const posted = await client.chat.postMessage({ channel: 'C123DOCS', text: 'a'.repeat(40_001) });
    expect(posted).toMatchObject({ warning: 'message_truncated' });
    expect(slack.tenant().message('C123DOCS', String(posted.ts))?.text).toHaveLength(40_000);
    const fits = await client.chat.postMessage({ channel: 'C123DOCS', text: 'a'.repeat(40_000) });
    expect(fits.warning).toBeUndefined();
  });

  it('takes metadata with event_type and event_payload only; chat.update keeps it unless given, clears it with {}', async () => {
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => 'ok',
        (error: { data?: { error?: string } }) => error.data?.error,
      );
    const post = (metadata: unknown) =>
      refusal(client.chat.postMessage({ channel: 'C123DOCS', text: 'x', metadata } as never));
    expect(await post({ event_type: 'job' })).toBe('invalid_metadata_schema');
    expect(await post('{not json')).toBe('invalid_metadata_format');
    const metadata = { event_type: 'job', event_payload: { id: '1' } };
    const { ts } = await client.chat.postMessage({ channel: 'C123DOCS', text: 'Working…', metadata });
    const at = { channel: 'C123DOCS', ts: String(ts) };
    await client.chat.update({ ...at, text: 'Still working' });
    expect(slack.tenant().message(at.channel, at.ts)?.metadata).toEqual(metadata);
    expect(await refusal(client.chat.update({ ...at, text: 'x', metadata: { event_payload: {} } } as never))).toBe(
      'invalid_metadata_schema',
    );
    await client.chat.update({ ...at, text: 'Done', metadata: {} } as never);
    expect(slack.tenant().message(at.channel, at.ts)?.metadata).toBeUndefined();
  });

  it('deletes the app’s own message (chat.delete), not another’s; a thread root with replies stays a tombstone', async () => {
    const refusal = (ts: string) =>
      client.chat.delete({ channel: 'C123DOCS', ts }).then(
        () => 'ok',
        (error: { data?: { error?: string } }) => error.data?.error,
      );
    const alone = await postRoot('Starting…');
    expect(await refusal(alone)).toBe('ok');
    expect(slack.tenant().message('C123DOCS', alone)).toBeUndefined();
    expect(await refusal(alone)).toBe('message_not_found');
    expect(await refusal(slack.people.says('U456BOB', 'C123DOCS', 'Mine').ts)).toBe('cant_delete_message');
    const root = await postRoot('Working…');
    await client.chat.postMessage({ channel: 'C123DOCS', thread_ts: root, text: 'a reply' });
    expect(await refusal(root)).toBe('ok');
    expect(slack.tenant().message('C123DOCS', root)).toMatchObject({ subtype: 'tombstone' });
  });

  it('refuses Block Kit over Slack’s limits with invalid_blocks, naming each problem', async () => {
    const long = 'x'.repeat(BLOCK_KIT_LIMITS.sectionText + 1);
    const cases: unknown[][] = [
      [{ type: 'section', text: { type: 'mrkdwn', text: long } }],
      Array.from({ length: BLOCK_KIT_LIMITS.messageBlocks + 1 }, () => ({ type: 'divider' })),
      [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }],
      [
        {
          type: 'actions',
          elements: [{ type: 'button', action_id: 'a', text: { type: 'plain_text', text: 'b'.repeat(76) } }],
        },
      ],
      [{ type: 'section', text: { type: 'mrkdwn', text: '' } }],
    ];
    for (const blocks of cases) {
      await expect(
        client.chat.postMessage({ channel: 'C123DOCS', text: 'fallback', blocks: blocks as never }),
      ).rejects.toMatchObject({ data: { error: 'invalid_blocks', errors: [expect.stringMatching(/^\[ERROR\]/)] } });
    }
    const ok = await client.chat.postMessage({
      channel: 'C123DOCS',
      text: 'fine',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(3000) } }],
    });
    expect(ok.ok).toBe(true);
  });

  it('refuses a context element over 3,000 characters with invalid_blocks, on a post and on an update', async () => {
    const context = (text: string) => [{ type: 'context', elements: [{ type: 'mrkdwn', text }] }] as never;
    const over = context('x'.repeat(3_001));
    const refused = { data: { error: 'invalid_blocks', errors: [expect.stringContaining('/blocks/0/elements/0')] } };
    await expect(client.chat.postMessage({ channel: 'C123DOCS', text: 't', blocks: over })).rejects.toMatchObject(
      refused,
    );
    const ts = await postRoot('root');
    await expect(client.chat.update({ channel: 'C123DOCS', ts, text: 't', blocks: over })).rejects.toMatchObject(
      refused,
    );
    const ok = await client.chat.update({ channel: 'C123DOCS', ts, text: 't', blocks: context('x'.repeat(3_000)) });
    expect(ok.ok).toBe(true);
  });

  it('takes a file the way files.uploadV2 sends it and shares it in the thread', async () => {
    const root = await postRoot('report');
    await client.files.uploadV2({
      channel_id: 'C123DOCS',
      thread_ts: root,
      filename: 'visitors.csv',
      title: 'Visitors',
      content: 'day,visitors\n2026-01-01,3\n',
    });
    expect(slack.files.at(-1)).toMatchObject({
      name: 'visitors.csv',
      title: 'Visitors',
      content: 'day,visitors\n2026-01-01,3\n',
    });
    expect(slack.messages.at(-1)).toMatchObject({ thread_ts: root, files: [{ name: 'visitors.csv' }] });
  });

  it('stores another app’s post as a bot_message (no user, text empty unless given) and sends that event', async () => {
    const root = await postRoot('Deploy started');
    const attachments = [{ fallback: 'Build failed', title: 'Build #12 failed' }];
    const posted = slack.people.appPosts(
      { botId: 'B9CI', username: 'CI' },
      'C123DOCS',
      { attachments },
      { threadTs: root },
    );
    expect(posted.events.map((e) => e.event)).toEqual([
      expect.objectContaining({ type: 'message', subtype: 'bot_message', bot_id: 'B9CI', username: 'CI', text: '' }),
    ]);
    expect(posted.events[0]?.event).not.toHaveProperty('user');
    const { messages } = await client.conversations.replies({ channel: 'C123DOCS', ts: root });
    expect(messages?.at(-1)).toMatchObject({ subtype: 'bot_message', text: '', attachments, thread_ts: root });
  });

  it('deletes a person’s message: gone with message_deleted, or a thread root with replies left as a tombstone', async () => {
    const alone = slack.people.says('U456BOB', 'C123DOCS', 'typo');
    expect(slack.people.deletes('U456BOB', 'C123DOCS', alone.ts).events[0]?.event).toMatchObject({
      subtype: 'message_deleted',
      deleted_ts: alone.ts,
      hidden: true,
    });
    expect(slack.messages.some((m) => m.ts === alone.ts)).toBe(false);

    const root = slack.people.says('U456BOB', 'C123DOCS', 'Question');
    slack.people.says('U123ALICE', 'C123DOCS', 'Answer', { threadTs: root.ts });
    const [changed] = slack.people.deletes('U456BOB', 'C123DOCS', root.ts).events;
    expect(changed?.event).toMatchObject({ subtype: 'message_changed', message: { subtype: 'tombstone' } });
    const { messages } = await client.conversations.replies({ channel: 'C123DOCS', ts: root.ts });
    expect(messages?.[0]).toMatchObject({
      ts: root.ts,
      subtype: 'tombstone',
      text: 'This message was deleted.',
      user: 'USLACKBOT',
      hidden: true,
    });
    expect(messages?.[1]).toMatchObject({ text: 'Answer' });
  });

  it('records views opened and published, with the 100-block limit of views', async () => {
    const view = {
      type: 'home' as const,
      blocks: [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text: 'Hi' } }],
    };
    const published = await client.views.publish({ user_id: 'U123ALICE', view });
    expect(published.view?.id).toMatch(/^V/);
    expect(slack.views.at(-1)).toMatchObject({ via: 'views.publish', user_id: 'U123ALICE' });
    const tooMany = Array.from({ length: 101 }, () => ({ type: 'divider' as const }));
    await expect(
      client.views.publish({ user_id: 'U123ALICE', view: { type: 'home', blocks: tooMany } }),
    ).rejects.toMatchObject({ data: { error: 'invalid_blocks' } });
  });

  it('refuses a view over 250 kB with view_too_large, a Home or a modal, counting its JSON in UTF-8 bytes', async () => {
    const home = (text: string) => ({
      type: 'home' as const,
      blocks: Array.from({ length: 100 }, () => ({
        type: 'section' as const,
        text: { type: 'mrkdwn' as const, text },
      })),
    });
    await client.views.publish({ user_id: 'U123ALICE', view: home('x'.repeat(2_400)) });
    await expect(client.views.publish({ user_id: 'U123ALICE', view: home('👍'.repeat(700)) })).rejects.toMatchObject({
      data: { error: 'view_too_large' },
    });
    // A modal too: views.open, push and update list the same refusal.
    const modal = {
      ...home('👍'.repeat(700)),
      type: 'modal' as const,
      title: { type: 'plain_text' as const, text: 'Ask' },
    };
    await expect(client.views.open({ trigger_id: '1.2.abc', view: modal })).rejects.toMatchObject({
      data: { error: 'view_too_large' },
    });
  });

  it('takes a trigger it sent once, within three seconds: exchanged_trigger_id, expired_trigger_id after', async () => {
    let clock = 1_000_000;
    const timed = await startSlackStandin(undefined, 0, { now: () => clock });
    try {
      const bot = new webApi.WebClient(timed.workspace.botToken, {
        slackApiUrl: timed.apiUrl,
        retryConfig: { retries: 0 },
      });
      const modal = { type: 'modal' as const, title: { type: 'plain_text' as const, text: 'Ask' }, blocks: [] };
      const open = (trigger_id: string) =>
        bot.views.open({ trigger_id, view: modal }).then(
          () => 'ok',
          (error: { data?: { error?: string } }) => error.data?.error,
        );
      const first = timed.trigger();
      expect(await open(first)).toBe('ok');
      expect(await open(first)).toBe('exchanged_trigger_id');
      const late = timed.trigger();
      clock += 3_001;
      expect(await open(late)).toBe('expired_trigger_id');
    } finally {
      await timed.close();
    }
  });

  it('refuses a modal whose title, close or submit is over 24 characters, or whose private_metadata is over 3,000', async () => {
    const text = (chars: number) => ({ type: 'plain_text' as const, text: 'x'.repeat(chars) });
    const modal = { type: 'modal' as const, title: text(24), close: text(24), submit: text(24), blocks: [] };
    await client.views.open({ trigger_id: 't1', view: { ...modal, private_metadata: 'm'.repeat(3_000) } });
    for (const over of [
      { title: text(25) },
      { close: text(25) },
      { submit: text(25) },
      { private_metadata: 'm'.repeat(3_001) },
    ])
      await expect(client.views.open({ trigger_id: 't1', view: { ...modal, ...over } })).rejects.toMatchObject({
        data: { error: 'invalid_arguments' },
      });
  });
});
