import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SlackStandin, startSlackStandin } from '../../tools/slack-standin/index.js';

const ALICE = 'U123ALICE';
const DOCS = 'C123DOCS';

/** Agent sessions (docs.slack.dev/ai/agent-sessions, agents.sessions.setStatus, .rename, agent_session_stopped). */
describe('Slack stand-in: agent sessions', () => {
  let slack: SlackStandin;
  let client: webApi.WebClient;
  let root: string;
  const setStatus = (args: Record<string, unknown>) =>
    client.apiCall('agents.sessions.setStatus', { channel_id: DOCS, thread_ts: root, ...args });
  const refusal = (call: Promise<unknown>) =>
    call.then(
      () => 'ok',
      (error: { data?: { error?: string } }) => error.data?.error,
    );

  beforeEach(async () => {
    slack = await startSlackStandin(undefined, 0, { view: 'agent_view' });
    client = new webApi.WebClient(slack.workspace.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    root = slack.people.says(ALICE, DOCS, 'Document the CLI').ts;
  });
  afterEach(() => slack.close());

  it('setStatus creates the thread’s session with its title and initiator, then only moves its status', async () => {
    const created = await client.agents.sessions.setStatus({
      channel_id: DOCS,
      thread_ts: root,
      status: 'processing',
      title: 'Document the CLI',
      initiator_user_id: ALICE,
    });
    expect(created).toMatchObject({ ok: true, status: 'processing', title: 'Document the CLI' });
    expect(created.warning).toBeUndefined();
    await setStatus({ status: 'active', title: 'ignored once the session exists' });
    expect(slack.tenant().agentSession(DOCS, root)).toMatchObject({
      status: 'active',
      statuses: ['processing', 'active'],
      title: 'Document the CLI',
      initiator: ALICE,
    });
  });

  it('refuses what Slack refuses: arguments, statuses, titles, channels, threads, people, scope', async () => {
    expect(await refusal(client.apiCall('agents.sessions.setStatus', { channel_id: DOCS, thread_ts: root }))).toBe(
      'invalid_arguments',
    );
    expect(await refusal(client.apiCall('agents.sessions.setStatus', { channel_id: DOCS, status: 'active' }))).toBe(
      'thread_ts_required',
    );
    expect(await refusal(setStatus({ status: 'working' }))).toBe('invalid_status');
    expect(await refusal(setStatus({ status: 'processing', title: 'x'.repeat(201) }))).toBe('invalid_arguments');
    expect(await refusal(setStatus({ status: 'processing', channel_id: 'C999NOPE' }))).toBe('channel_not_found');
    expect(await refusal(setStatus({ status: 'processing', thread_ts: '1.000001' }))).toBe('invalid_thread_ts');
    slack.workspace.channels.push({ id: 'C567NOBOT', name: 'no-bot', botMember: false });
    expect(await refusal(setStatus({ status: 'processing', channel_id: 'C567NOBOT' }))).toBe('not_authorized');
    expect(await refusal(setStatus({ status: 'processing', initiator_user_id: 'U999NOBODY' }))).toBe('user_not_found');
    slack.acceptToken('xoxb-no-chat', 'bot', 'T1', ['assistant:write']);
    const narrow = new webApi.WebClient('xoxb-no-chat', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    const call = narrow.apiCall('agents.sessions.setStatus', { channel_id: DOCS, thread_ts: root, status: 'active' });
    expect(await refusal(call)).toBe('missing_scope');
    expect(slack.tenant().agentSessions).toEqual([]);
  });

  it('an app that is not an agent (assistant_view) has no sessions', async () => {
    slack.view = 'assistant_view';
    expect(await refusal(setStatus({ status: 'processing' }))).toBe('feature_disabled');
  });

  it('warns while the app is not subscribed to agent_session_stopped, whose Stop button then does nothing', async () => {
    slack.subscriptions.delete('agent_session_stopped');
    const answer = await setStatus({ status: 'processing' });
    expect(answer).toMatchObject({ ok: true, warning: 'missing_agent_session_stopped_event_subscription' });
    expect(slack.people.stopsSession(ALICE, DOCS, root)).toEqual([]);
  });

  it('Stop, shown while processing only, sends agent_session_stopped and leaves the status to the app', async () => {
    expect(() => slack.people.stopsSession(ALICE, DOCS, root)).toThrow(/not processing/);
    await setStatus({ status: 'processing' });
    const [stopped] = slack.people.stopsSession(ALICE, DOCS, root);
    expect(stopped?.event).toEqual({
      type: 'agent_session_stopped',
      channel: DOCS,
      user: ALICE,
      thread_ts: root,
      streaming_message_ts: [],
      event_ts: expect.any(String),
    });
    expect(stopped?.team_id).toBe('T1');
    expect(slack.tenant().agentSession(DOCS, root)?.status).toBe('processing');
  });

  it('Stop stops the app’s messages still streaming in the thread, and lists them in the event', async () => {
    await setStatus({ status: 'processing' });
    const streamed = await client.apiCall('chat.startStream', {
      channel: DOCS,
      thread_ts: root,
      recipient_user_id: ALICE,
      recipient_team_id: 'T1',
      markdown_text: 'Working on it',
    });
    const ts = String((streamed as { ts?: string }).ts);
    const [stopped] = slack.people.stopsSession(ALICE, DOCS, root);
    expect(stopped?.event).toMatchObject({ streaming_message_ts: [ts] });
    // chat.appendStream: "stopped_by_user"; chat.stopStream lists no such error, only that it no longer streams.
    expect(await refusal(client.apiCall('chat.appendStream', { channel: DOCS, ts, markdown_text: 'more' }))).toBe(
      'stopped_by_user',
    );
    expect(await refusal(client.apiCall('chat.stopStream', { channel: DOCS, ts }))).toBe(
      'message_not_in_streaming_state',
    );
  });

  it('rename sets a new title (1 to 200 characters) on an existing session', async () => {
    const rename = (title: string) =>
      client.apiCall('agents.sessions.rename', { channel_id: DOCS, thread_ts: root, title });
    expect(await refusal(rename('Add examples'))).toBe('session_not_found');
    await setStatus({ status: 'processing', title: 'Document the CLI' });
    expect(await refusal(rename(''))).toBe('invalid_arguments');
    expect(await rename('Add examples')).toMatchObject({ ok: true, title: 'Add examples' });
    expect(slack.tenant().agentSession(DOCS, root)).toMatchObject({ title: 'Add examples', titles: ['Add examples'] });
  });
});
