import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SlackStandin, startSlackStandin } from '../../tools/slack-standin/index.js';

const ALICE = 'U123ALICE';
const DOCS = 'C123DOCS';

/** Streamed messages (docs.slack.dev chat.startStream, chat.appendStream, chat.stopStream; plan and task_card blocks). */
describe('Slack stand-in: streamed messages', () => {
  let slack: SlackStandin;
  let client: webApi.WebClient;
  let clock: number;
  const recipient = { recipient_user_id: ALICE, recipient_team_id: 'T123' };
  const refusal = (call: Promise<unknown>) =>
    call.then(
      () => 'ok',
      (error: { data?: { error?: string } }) => error.data?.error,
    );
  const task = (id: string, title: string, status: string) => ({ type: 'task_update', id, title, status });
  const start = () =>
    client.chat.startStream({
      channel: DOCS,
      ...recipient,
      task_display_mode: 'plan',
      chunks: [
        { type: 'plan_update', title: 'Job' },
        task('a', 'Created', 'complete'),
        task('b', 'Working', 'in_progress'),
      ],
    } as never);

  beforeEach(async () => {
    clock = 1_000_000;
    slack = await startSlackStandin(undefined, 0, { now: () => clock });
    client = new webApi.WebClient(slack.workspace.botToken, {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
  });
  afterEach(() => slack.close());

  it('streams a top-level message in plan mode: task updates render as one plan, stop adds the final blocks', async () => {
    const { ts } = await start();
    await client.chat.appendStream({
      channel: DOCS,
      ts: ts as string,
      chunks: [task('b', 'Worked', 'complete')],
    } as never);
    const button = {
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open' }, url: 'https://x.test' }],
    };
    await client.chat.stopStream({ channel: DOCS, ts: ts as string, blocks: [button] } as never);
    const message = slack.tenant().message(DOCS, ts as string);
    expect(message?.thread_ts).toBeUndefined();
    expect(message?.blocks).toEqual([
      {
        type: 'plan',
        title: 'Job',
        tasks: [
          { type: 'task_card', task_id: 'a', title: 'Created', status: 'complete' },
          { type: 'task_card', task_id: 'b', title: 'Worked', status: 'complete' },
        ],
      },
      button,
    ]);
    expect(await refusal(client.chat.appendStream({ channel: DOCS, ts: ts as string, markdown_text: 'late' }))).toBe(
      'message_not_in_streaming_state',
    );
  });

  it('refuses what Slack refuses: recipient in channels, display mode, chunks, 12,000 characters, blocks', async () => {
    const bad = (args: Record<string, unknown>) =>
      refusal(client.apiCall('chat.startStream', { channel: DOCS, ...recipient, ...args }));
    expect(await refusal(client.apiCall('chat.startStream', { channel: DOCS, markdown_text: 'hi' }))).toBe(
      'missing_recipient_user_id',
    );
    expect(await bad({ recipient_team_id: undefined })).toBe('missing_recipient_team_id');
    expect(await bad({ recipient_user_id: 'U404NOBODY', markdown_text: 'hi' })).toBe('user_not_found');
    expect(await bad({ task_display_mode: 'list' })).toBe('invalid_arguments');
    // Chunks Slack does not take: "invalid_chunks" (chat.startStream, chat.appendStream, chat.stopStream).
    expect(await bad({ chunks: [{ type: 'image' }] })).toBe('invalid_chunks');
    expect(await bad({ chunks: [task('a', 'A', 'done')] })).toBe('invalid_chunks');
    expect(await bad({ chunks: [{ type: 'plan_update' }] })).toBe('invalid_chunks');
    expect(await bad({ markdown_text: 'x'.repeat(12_001) })).toBe('invalid_arguments');
    expect(await bad({ channel: 'C999NOPE' })).toBe('channel_not_found');
    expect(await bad({ thread_ts: '1.000001' })).toBe('invalid_thread_ts');
    // A DM has one person: no recipient needed.
    expect(await refusal(client.apiCall('chat.startStream', { channel: `D${ALICE}`, markdown_text: 'hi' }))).toBe('ok');
    const { ts } = await start();
    const stop = (blocks: unknown) => refusal(client.apiCall('chat.stopStream', { channel: DOCS, ts, blocks }));
    expect(await stop([{ type: 'plan', tasks: [] }])).toBe('invalid_blocks');
    expect(await stop([{ type: 'task_card', task_id: 't', title: 'T', status: 'finished' }])).toBe('invalid_blocks');
    expect(await refusal(client.apiCall('chat.appendStream', { channel: DOCS, ts }))).toBe('invalid_arguments');
    expect(
      await refusal(client.apiCall('chat.appendStream', { channel: DOCS, ts: '1.000001', markdown_text: 'x' })),
    ).toBe('message_not_found');
    expect(await stop(undefined)).toBe('ok');
  });

  it('streams only the app’s own messages: another’s is not the app’s to append to or stop', async () => {
    const theirs = slack.people.says(ALICE, DOCS, 'Document the CLI').ts;
    const at = { channel: DOCS, ts: theirs };
    expect(await refusal(client.apiCall('chat.appendStream', { ...at, markdown_text: 'x' }))).toBe(
      'message_not_owned_by_app',
    );
    expect(await refusal(client.apiCall('chat.stopStream', at))).toBe('message_not_owned_by_app');
    const { ts } = await start();
    // Its own stream takes chunks as Slack does: a task without a title is not one.
    const appended = (chunks: unknown) => refusal(client.apiCall('chat.appendStream', { channel: DOCS, ts, chunks }));
    expect(await appended([task('c', '', 'pending')])).toBe('invalid_chunks');
    expect(await appended([task('c', 'Checked', 'pending')])).toBe('ok');
  });

  it('stopStream keeps the metadata, caps blocks at 50 apart from chunks, and sets the session to session_status', async () => {
    slack.view = 'agent_view';
    const { ts } = await start();
    const at = { channel: DOCS, ts: ts as string };
    await client.agents.sessions.setStatus({
      channel_id: DOCS,
      thread_ts: ts as string,
      status: 'processing',
    } as never);
    const stop = (args: Record<string, unknown>) => refusal(client.apiCall('chat.stopStream', { ...at, ...args }));
    const divider = { type: 'divider' };
    expect(await stop({ blocks: Array.from({ length: 51 }, () => divider) })).toBe('invalid_blocks');
    expect(await stop({ metadata: '{not json' })).toBe('invalid_metadata_format');
    expect(await stop({ metadata: { event_payload: {} } })).toBe('invalid_metadata_schema');
    expect(await stop({ session_status: 'done' })).toBe('invalid_arguments');
    const metadata = { event_type: 'job', event_payload: { id: '1' } };
    const blocks = Array.from({ length: 50 }, () => divider);
    expect(
      await stop({ chunks: [{ type: 'blocks', blocks: [divider] }], blocks, metadata, session_status: 'processing' }),
    ).toBe('ok');
    const message = slack.tenant().message(DOCS, ts as string);
    expect(message?.metadata).toEqual(metadata);
    expect(((message?.blocks ?? []) as { type: string }[]).filter((b) => b.type === 'divider')).toHaveLength(51);
    expect(slack.tenant().agentSession(DOCS, ts as string)?.status).toBe('processing');
    // Without session_status the session is set to Slack's default, `active`.
    const second = await start();
    await client.agents.sessions.setStatus({
      channel_id: DOCS,
      thread_ts: second.ts as string,
      status: 'processing',
    } as never);
    await client.chat.stopStream({ channel: DOCS, ts: second.ts as string });
    expect(slack.tenant().agentSession(DOCS, second.ts as string)?.statuses).toEqual(['processing', 'active']);
  });

  it('refuses to start a stream where a post is refused: an archived channel, one the bot is not in', async () => {
    const random = slack.workspace.channels.find((c) => c.id === 'C345RANDOM');
    if (!random) throw new Error('the default workspace lists #random');
    const startIn = () => refusal(client.chat.startStream({ channel: 'C345RANDOM', ...recipient } as never));
    random.archived = true;
    expect(await startIn()).toBe('is_archived');
    random.archived = false;
    random.botMember = false;
    expect(await startIn()).toBe('not_in_channel');
    random.botMember = true;
    expect(await startIn()).toBe('ok');
  });

  it('refuses chat.update on a message still streaming (streaming_state_conflict); once stopped it rewrites it', async () => {
    const { ts } = await start();
    const update = () => refusal(client.chat.update({ channel: DOCS, ts: ts as string, text: 'Done' }));
    expect(await update()).toBe('streaming_state_conflict');
    expect(slack.streamShown(DOCS, ts as string)).toBe('streaming');
    await client.chat.stopStream({ channel: DOCS, ts: ts as string });
    expect(await update()).toBe('ok');
    expect(slack.tenant().message(DOCS, ts as string)?.text).toBe('Done');
  });

  it('expires a stream whose appends stop for streamExpiryMs, shown broken; chat.update rewrites it final', async () => {
    slack.streamExpiryMs = 60_000;
    const { ts } = await start();
    expect(slack.streamShown(DOCS, ts as string)).toBe('streaming');
    clock += 59_000;
    expect(
      await refusal(client.chat.appendStream({ channel: DOCS, ts: ts as string, markdown_text: 'still here' })),
    ).toBe('ok');
    clock += 61_000;
    expect(await refusal(client.chat.appendStream({ channel: DOCS, ts: ts as string, markdown_text: 'gone' }))).toBe(
      'message_not_in_streaming_state',
    );
    expect(await refusal(client.chat.stopStream({ channel: DOCS, ts: ts as string }))).toBe(
      'message_not_in_streaming_state',
    );
    // Nobody stopped it: Slack shows the grey "Something went wrong" until the message is rewritten.
    expect(slack.streamShown(DOCS, ts as string)).toBe('broken');
    const card = {
      type: 'plan',
      title: 'Job',
      tasks: [{ type: 'task_card', task_id: 'a', title: 'Done', status: 'complete' }],
    };
    await client.chat.update({ channel: DOCS, ts: ts as string, text: 'Done', blocks: [card] });
    expect(slack.tenant().message(DOCS, ts as string)?.blocks).toEqual([card]);
    expect(slack.streamShown(DOCS, ts as string)).toBe('final');
  });

  it('refuses streaming where the workspace does not offer it, and paces by tier (start Tier 2, append Tier 4)', async () => {
    slack.rateLimits.enable();
    for (let i = 0; i < 20; i++) await start();
    const limited = { code: 'slack_webapi_rate_limited_error' };
    await expect(start()).rejects.toMatchObject(limited);
    const { ts } = slack.tenant().messages[0] ?? { ts: '' };
    for (let i = 0; i < 100; i++) await client.chat.appendStream({ channel: DOCS, ts, markdown_text: '.' });
    await expect(client.chat.appendStream({ channel: DOCS, ts, markdown_text: '.' })).rejects.toMatchObject(limited);
    slack.rateLimits.disable();
    slack.streaming = false;
    expect(await refusal(start())).toBe('feature_not_enabled');
  });
});
