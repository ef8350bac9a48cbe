import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SlackStandin, startSlackStandin } from '../../tools/slack-standin/index.js';

const ALICE = 'U123ALICE';
const DM = `D${ALICE}`;
const DOCS = 'C123DOCS';
const PROMPTS = [{ title: 'Start a job', message: 'help' }];

/**
 * The Agent messaging experience (manifest `agent_view`, docs.slack.dev "Migrating to the Agent messaging
 * experience"), next to the assistant pane (`assistant_view`) that apps created before 2026-06-30 keep.
 */
describe('Slack stand-in: agent_view and assistant_view', () => {
  let slack: SlackStandin;
  let client: webApi.WebClient;
  const prompts = (args: Record<string, unknown>) =>
    client.apiCall('assistant.threads.setSuggestedPrompts', { channel_id: DM, prompts: PROMPTS, ...args });

  beforeEach(async () => {
    slack = await startSlackStandin();
    client = new webApi.WebClient(slack.workspace.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  });
  afterEach(() => slack.close());

  describe('an agent_view app', () => {
    beforeEach(() => {
      slack.view = 'agent_view';
    });

    it('opening the Messages tab is app_home_opened with tab "messages" and what the person looks at', () => {
      const [opened] = slack.people.opensMessagesTab(ALICE, { context: DOCS }).events;
      expect(opened?.event).toEqual({
        type: 'app_home_opened',
        user: ALICE,
        channel: DM,
        tab: 'messages',
        context: { entities: [{ type: 'slack#/types/channel_id', value: DOCS, team_id: 'T1' }] },
        event_ts: expect.any(String),
      });
    });

    it('moving sends app_context_changed (an empty context away from any channel); DM messages carry app_context', () => {
      const [moved] = slack.people.looksAt(ALICE, DOCS);
      expect(moved?.event).toEqual({
        type: 'app_context_changed',
        user: ALICE,
        channel: DM,
        context: { entities: [{ type: 'slack#/types/channel_id', value: DOCS, team_id: 'T1' }] },
        event_ts: expect.any(String),
      });
      const [message] = slack.people.says(ALICE, DM, 'Document the CLI').events;
      expect(message?.event).toMatchObject({ channel_type: 'im', app_context: moved?.event.context });
      const [nowhere] = slack.people.looksAt(ALICE, undefined);
      expect(nowhere?.event.context).toEqual({});
      // A channel message is no DM: no app_context.
      expect(slack.people.says(ALICE, DOCS, 'hello').events[0]?.event.app_context).toBeUndefined();
    });

    it('setSuggestedPrompts without thread_ts sets the prompts at the top of the Messages tab', async () => {
      await expect(prompts({ title: 'What shall we do?' })).resolves.toMatchObject({ ok: true });
      expect(slack.tenant().messagesTabPrompts.get(DM)).toEqual({ title: 'What shall we do?', prompts: PROMPTS });
    });

    it('setSuggestedPrompts with a thread_ts fails silently: ok, and nothing set', async () => {
      const { ts } = slack.people.says(ALICE, DM, 'Document the CLI');
      await expect(prompts({ thread_ts: ts })).resolves.toMatchObject({ ok: true });
      expect(slack.tenant().messagesTabPrompts.size).toBe(0);
      expect(slack.tenant().assistantThreads).toEqual([]);
    });

    it.each([
      ['no channel_id', { channel_id: undefined }, 'invalid_arguments'],
      ['no prompts', { prompts: undefined }, 'invalid_arguments'],
      ['more than four prompts', { prompts: Array(5).fill(PROMPTS[0]) }, 'invalid_arguments'],
      ['a prompt without its message', { prompts: [{ title: 't' }] }, 'invalid_arguments'],
      ['a channel Slack does not know', { channel_id: 'C0NOPE' }, 'channel_not_found'],
    ])('setSuggestedPrompts refuses %s', async (_, args, error) => {
      await expect(prompts(args)).rejects.toMatchObject({ data: { ok: false, error } });
      expect(slack.tenant().messagesTabPrompts.size).toBe(0);
    });

    it('has no assistant pane: assistant_thread_started never comes', () => {
      expect(() => slack.people.opensAssistant(ALICE, { context: DOCS })).toThrow(/no assistant pane/);
    });
  });

  describe('an assistant_view app (the default)', () => {
    it('gets no app_context_changed, no app_context on DMs, and a Messages tab opening without context', () => {
      expect(slack.view).toBe('assistant_view');
      expect(slack.people.looksAt(ALICE, DOCS)).toEqual([]);
      expect(slack.people.says(ALICE, DM, 'hi').events[0]?.event.app_context).toBeUndefined();
      const [opened] = slack.people.opensMessagesTab(ALICE, { context: DOCS }).events;
      expect(opened?.event).toEqual({
        type: 'app_home_opened',
        user: ALICE,
        channel: DM,
        tab: 'messages',
        event_ts: expect.any(String),
      });
    });

    it('setSuggestedPrompts without thread_ts sets them on the thread of the latest message in the channel', async () => {
      await expect(prompts({})).rejects.toMatchObject({ data: { error: 'message_not_found' } });
      const pane = slack.people.opensAssistant(ALICE, { context: DOCS });
      await expect(prompts({})).resolves.toMatchObject({ ok: true });
      expect(pane.thread.suggestedPrompts).toEqual({ prompts: PROMPTS });
      expect(slack.tenant().messagesTabPrompts.size).toBe(0);
    });
  });
});
