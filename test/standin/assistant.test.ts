import { Assistant, webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AssistantThread,
  type EventDelivery,
  httpDelivery,
  type SlackStandin,
  startSlackStandin,
} from '../../tools/slack-standin/index.js';
import { BOLT_SIGNING_SECRET, type BoltApp, startBoltApp } from '../support/bolt-app.js';
import { eventually } from '../support/test-app.js';

/** The assistant pane (Agents & AI apps) as Bolt's `Assistant` class meets it. */
describe('Slack stand-in: the assistant pane', () => {
  let slack: SlackStandin;
  let bolt: BoltApp;
  let delivery: EventDelivery;
  let client: webApi.WebClient;
  let thread: AssistantThread;
  const statusWhileThinking: (string | undefined)[] = [];

  beforeAll(async () => {
    slack = await startSlackStandin();
    bolt = await startBoltApp(slack);
    bolt.app.assistant(
      new Assistant({
        threadStarted: async ({ say, saveThreadContext, setSuggestedPrompts }) => {
          await say('Hi! What shall I document?');
          await saveThreadContext();
          await setSuggestedPrompts({
            title: 'Try one',
            prompts: [{ title: 'Retries', message: 'Document the retry policy' }],
          });
        },
        userMessage: async ({ message, say, setStatus, setTitle, getThreadContext }) => {
          await setStatus({ status: 'is thinking…', loading_messages: ['Reading the docs…'] });
          statusWhileThinking.push(thread.status?.status);
          const context = await getThreadContext();
          await setTitle(`About ${'text' in message ? message.text : ''}`);
          await say(`On it, from ${context.channel_id}`);
        },
      }),
    );
    delivery = httpDelivery({ appUrl: bolt.url, signingSecret: BOLT_SIGNING_SECRET });
    client = new webApi.WebClient(slack.workspace.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  });
  afterAll(async () => {
    await bolt.stop();
    await slack.close();
  });

  const botReplies = () => slack.messages.filter((m) => m.thread_ts === thread.threadTs && m.user === 'UBOT');

  it('opening the pane: assistant_thread_started with the thread and where the person was', async () => {
    const opened = slack.people.opensAssistant('U123ALICE', { context: 'C123DOCS' });
    thread = opened.thread;
    const [started] = opened.events;
    expect(started?.event).toEqual({
      type: 'assistant_thread_started',
      assistant_thread: {
        user_id: 'U123ALICE',
        context: { channel_id: 'C123DOCS', team_id: 'T1', enterprise_id: null },
        channel_id: 'DU123ALICE',
        thread_ts: opened.threadTs,
      },
      event_ts: expect.any(String),
    });
    expect(slack.messages.find((m) => m.ts === opened.threadTs)).toMatchObject({ subtype: 'assistant_app_thread' });
    for (const event of opened.events) await delivery.deliver(event);
    await eventually(() => thread.suggestedPrompts, 3_000, 'suggested prompts');
    expect(thread.suggestedPrompts).toEqual({
      title: 'Try one',
      prompts: [{ title: 'Retries', message: 'Document the retry policy' }],
    });
    // Bolt's say and saveThreadContext keep the context in the greeting's metadata.
    expect(botReplies()).toMatchObject([
      {
        text: 'Hi! What shall I document?',
        metadata: { event_type: 'assistant_thread_context', event_payload: { channel_id: 'C123DOCS', team_id: 'T1' } },
      },
    ]);
  });

  it('a message in the thread: message.im with thread_ts; status while working, cleared by the reply; a title', async () => {
    const said = slack.people.says('U123ALICE', thread.channel, 'the <Retry> & backoff page', {
      threadTs: thread.threadTs,
    });
    expect(said.events.map((e) => e.event)).toMatchObject([
      { type: 'message', channel_type: 'im', thread_ts: thread.threadTs, text: 'the &lt;Retry&gt; &amp; backoff page' },
    ]);
    for (const event of said.events) await delivery.deliver(event);
    await eventually(() => botReplies().length === 2, 3_000, 'the reply');
    expect(statusWhileThinking).toEqual(['is thinking…']);
    expect(thread.statuses).toEqual(['is thinking…']);
    expect(thread.status).toBeUndefined();
    expect(botReplies()[1]?.text).toBe('On it, from C123DOCS');
    expect(thread.title).toBe('About the &lt;Retry&gt; &amp; backoff page');
    expect(slack.messages.find((m) => m.ts === thread.threadTs)?.assistant_app_thread?.title).toBe(thread.title);
  });

  it('clicking a suggested prompt: its message, posted as the person’s in the thread (message.im)', async () => {
    const picked = slack.people.picksPrompt(thread, 'Retries');
    expect(picked.events.map((e) => e.event)).toMatchObject([
      {
        type: 'message',
        channel_type: 'im',
        user: 'U123ALICE',
        thread_ts: thread.threadTs,
        text: 'Document the retry policy',
      },
    ]);
    expect(() => slack.people.picksPrompt(thread, 'Nope')).toThrow('no prompt "Nope"');
  });

  it('moving with the pane open: assistant_thread_context_changed, which Bolt saves on the thread', async () => {
    const events = slack.people.movesAssistant(thread, 'C234GENERAL');
    expect(events[0]?.event).toMatchObject({
      type: 'assistant_thread_context_changed',
      assistant_thread: { context: { channel_id: 'C234GENERAL' }, thread_ts: thread.threadTs },
    });
    for (const event of events) await delivery.deliver(event);
    const saved = () => botReplies()[0]?.metadata as { event_payload?: { channel_id?: string } } | undefined;
    await eventually(() => saved()?.event_payload?.channel_id === 'C234GENERAL', 3_000, 'the saved context');
  });

  it.each([
    ['setStatus without a status', 'setStatus', { status: undefined }, 'invalid_arguments'],
    ['a channel Slack does not know', 'setStatus', { channel_id: 'C0NOPE', status: 'x' }, 'channel_not_found'],
    ['a thread that is not there', 'setTitle', { thread_ts: '1.000001', title: 'x' }, 'invalid_thread_ts'],
    [
      'more than ten loading messages',
      'setStatus',
      { status: 'x', loading_messages: Array(11).fill('…') },
      'invalid_arguments',
    ],
    ['no loading messages (1 to 10)', 'setStatus', { status: 'x', loading_messages: [] }, 'invalid_arguments'],
    [
      'a loading message over 50 characters',
      'setStatus',
      { status: 'x', loading_messages: ['x'.repeat(51)] },
      'invalid_arguments',
    ],
    ['an empty loading message', 'setStatus', { status: 'x', loading_messages: [''] }, 'invalid_arguments'],
    [
      'more than four prompts',
      'setSuggestedPrompts',
      { prompts: Array(5).fill({ title: 't', message: 'm' }) },
      'invalid_arguments',
    ],
    ['a prompt without its message', 'setSuggestedPrompts', { prompts: [{ title: 't' }] }, 'invalid_arguments'],
  ])('refuses %s as Slack does', async (_, method, args, error) => {
    await expect(
      client.apiCall(`assistant.threads.${method}`, {
        channel_id: thread.channel,
        thread_ts: thread.threadTs,
        ...args,
      }),
    ).rejects.toMatchObject({ data: { ok: false, error } });
  });

  it('keeps the stand-in’s wire faults: invalid_blocks in the thread, a 5xx after storing the status', async () => {
    await expect(
      client.chat.postMessage({
        channel: thread.channel,
        thread_ts: thread.threadTs,
        text: 'fallback',
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '' } }],
      }),
    ).rejects.toMatchObject({ data: { error: 'invalid_blocks' } });
    slack.fail('assistant.threads.setStatus', { status: 503, afterStoring: true });
    await expect(
      client.assistant.threads.setStatus({
        channel_id: thread.channel,
        thread_ts: thread.threadTs,
        status: 'retrying…',
      }),
    ).rejects.toThrow();
    expect(thread.status?.status).toBe('retrying…');
  });
});
