import { describe, expect, it } from 'vitest';
import { paneCopy } from '../../src/agent/messages.js';
import { keys } from '../../src/store/keys.js';
import type { EventEnvelope } from '../../tools/slack-standin/index.js';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { type Harness, useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';

const LONG_JOB_MS = 60_000;
const GENERAL = 'C234GENERAL';
const DM = `D${USER_ID}`;
/** The channel the person looks at routes to its own project. */
const env = { MINTLIFY_CHANNEL_PROJECTS: `${CHANNEL_ID}:proj_b` };

/** `USER_ID` opens the Messages tab looking at `channel`; resolves once the app set the tab's prompts. */
async function opensTab(h: Harness, channel?: string): Promise<void> {
  await h.deliver(h.slack.people.opensMessagesTab(USER_ID, { context: channel }).events);
  await eventually(() => h.slack.tenant().messagesTabPrompts.get(DM), 5_000, 'the Messages tab’s prompts');
}

/** Waits until the app kept what the person looks at (the channel, or none). */
function kept(h: Harness, channel: string | undefined) {
  const viewing = () => h.app.app.deps.store.kv.get<{ channel?: string }>(keys.viewing(USER_ID));
  return eventually(async () => (await viewing())?.channel === channel, 5_000, 'the kept view');
}

/** The event a message sends, without the `app_context` Slack stamps on it (the app then reads the kept one). */
const unstamped = (events: EventEnvelope[]) =>
  events.map(({ event: { app_context: _, ...event }, ...e }) => ({ ...e, event }));

const transports = [
  ...storeKinds.map((store) => ({ name: `HTTP, ${store.label}`, store, socketMode: false })),
  { name: 'Socket Mode, memory store', store: storeKinds[0], socketMode: true },
];

describe.each(transports)('the Messages tab of an agent_view app ($name)', ({ store, socketMode }) => {
  const h = useHarness({ store, simulator: { jobDurationMs: LONG_JOB_MS }, slack: { socketMode } });
  const creates = () => h.creates().map((r) => ({ path: r.path, prompt: (r.body as { prompt: string }).prompt }));
  const agentView = () => {
    h.slack.view = 'agent_view';
  };

  it('offers the prompts; a DM starts a job on the project of the channel looked at, titled, with a status, in its thread; a reply steers it', async () => {
    agentView();
    await h.boot({ env });
    await opensTab(h, CHANNEL_ID);
    expect(h.slack.tenant().messagesTabPrompts.get(DM)).toEqual({
      title: paneCopy.promptsTitle,
      prompts: paneCopy.prompts,
    });
    // Set as an agent_view app must: without thread_ts (with one, Slack drops the call silently).
    expect(h.slack.callsTo('assistant.threads.setSuggestedPrompts')[0]?.args.thread_ts).toBeUndefined();

    const said = h.slack.people.says(USER_ID, DM, 'Document the <retry> policy');
    await h.deliver(said.events);
    const { jobId } = await h.jobOf(DM, said.ts, ['proj_b']);
    expect(creates()).toEqual([{ path: '/v2/agent/proj_b/job', prompt: 'Document the <retry> policy' }]);
    const thread = h.slack.tenant().assistantThread(DM, said.ts);
    expect(thread?.title).toBe('Document the <retry> policy');
    expect(thread?.statuses).toEqual([paneCopy.starting]);
    expect(thread?.status).toBeUndefined(); // cleared by the job's first post in the thread
    expect(h.threadPosts(said.ts)[0]?.args.channel).toBe(DM);

    await h.deliver(h.slack.people.says(USER_ID, DM, 'Include the backoff table', { threadTs: said.ts }).events);
    await eventually(() => h.followUps().length === 1, 5_000, 'the follow-up');
    expect(h.followUps()[0]?.path).toContain('/proj_b/');
    expect(h.followUps()[0]?.body).toEqual({ prompt: 'Include the backoff table' });
    expect(h.creates()).toHaveLength(1);

    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/7' });
    const outcome = await eventually(() =>
      h.slack.callsTo('chat.postMessage').find((c) => String(c.args.text).includes('pull/7')),
    );
    expect(outcome.args).toMatchObject({ channel: DM, thread_ts: said.ts });
  });

  it('the suggested prompts do what they say in a DM with no context kept: a report and a list, never a job', async () => {
    agentView();
    await h.boot({ env });
    const visitors = h.slack.people.says(USER_ID, DM, 'visitors this week');
    await h.deliver(unstamped(visitors.events));
    const report = await eventually(
      () => h.slack.calls.find((c) => JSON.stringify(c.args.blocks ?? '').includes('Unique visitors')),
      5_000,
      'the report',
    );
    expect(report.args.channel).toBe(DM);
    const mine = h.slack.people.says(USER_ID, DM, 'my jobs');
    await h.deliver(unstamped(mine.events));
    const none = await eventually(() => h.threadPosts(mine.ts)[0], 5_000, 'no jobs yet');
    expect(none.args.text).toContain('not started a job yet');
    expect(h.creates()).toEqual([]);
  });

  it('follows the person: app_context_changed is kept for a message without its own context, which wins when it has one', async () => {
    agentView();
    await h.boot({ env });
    await opensTab(h);
    await h.deliver(h.slack.people.looksAt(USER_ID, CHANNEL_ID));
    await kept(h, CHANNEL_ID);
    const first = h.slack.people.says(USER_ID, DM, 'Fix the quickstart');
    await h.deliver(unstamped(first.events));
    await h.jobOf(DM, first.ts, ['proj_b']);

    // The person moved to #general; the message says so even where the app missed the move.
    h.slack.people.looksAt(USER_ID, GENERAL);
    const second = h.slack.people.says(USER_ID, DM, 'Document webhooks');
    await h.deliver(second.events);
    await h.jobOf(DM, second.ts, [TEST_PROJECT_ID]);
    expect(creates()).toEqual([
      { path: '/v2/agent/proj_b/job', prompt: 'Fix the quickstart' },
      { path: `/v2/agent/${TEST_PROJECT_ID}/job`, prompt: 'Document webhooks' },
    ]);
  });

  it('an instruction that begins with the word “visitors” starts a job; in its thread even `visitors this week` steers it', async () => {
    agentView();
    await h.boot({ env });
    await opensTab(h, CHANNEL_ID);
    const said = h.slack.people.says(USER_ID, DM, 'Visitors who sign in should see the beta banner: document it');
    await h.deliver(said.events);
    await h.jobOf(DM, said.ts, ['proj_b']);
    expect(h.slack.tenant().assistantThread(DM, said.ts)?.title).toBe(
      'Visitors who sign in should see the beta banner: document it',
    );
    await h.deliver(h.slack.people.says(USER_ID, DM, 'visitors this week', { threadTs: said.ts }).events);
    await eventually(() => h.followUps().length === 1, 5_000, 'the follow-up');
    expect(h.followUps()[0]?.body).toEqual({ prompt: 'visitors this week' });
    expect(h.slack.calls.filter((c) => JSON.stringify(c.args.blocks ?? '').includes('Unique visitors'))).toEqual([]);
  });

  it('a message without words starts nothing: no title, no “is starting a job…”', async () => {
    agentView();
    await h.boot({ env });
    await opensTab(h, CHANNEL_ID);
    const said = h.slack.people.says(USER_ID, DM, ':tada: !!');
    await h.deliver(said.events);
    await settle();
    expect(h.slack.tenant().assistantThread(DM, said.ts)).toBeUndefined();
    expect(h.sim.requests).toHaveLength(0);
  });

  it('Slack’s redeliveries of `my jobs` and `visitors this week` are answered once', async () => {
    agentView();
    await h.boot({ env });
    await opensTab(h, CHANNEL_ID);
    const mine = h.slack.people.says(USER_ID, DM, 'my jobs');
    await h.deliver(mine.events);
    await h.deliver(mine.events, { retry: 1 });
    const visitors = h.slack.people.says(USER_ID, DM, 'visitors this week');
    await h.deliver(visitors.events);
    await h.deliver(visitors.events, { retry: 1 });
    const reports = () => h.slack.calls.filter((c) => JSON.stringify(c.args.blocks ?? '').includes('Unique visitors'));
    await eventually(() => reports().length > 0 && h.threadPosts(mine.ts).length > 0, 5_000, 'the answers');
    await settle();
    expect(reports()).toHaveLength(1);
    expect(h.threadPosts(mine.ts)).toHaveLength(1);
  });

  it('answers `help` in the message’s own thread, no title, no status, nothing started', async () => {
    agentView();
    await h.boot({ env });
    await opensTab(h, CHANNEL_ID);
    const said = h.slack.people.says(USER_ID, DM, 'help');
    await h.deliver(said.events);
    const usage = await eventually(() => h.threadPosts(said.ts)[0], 5_000, 'the usage');
    expect(usage.args.text).toContain('Ask the Mintlify agent');
    expect(usage.args.text).toContain('proj_b');
    expect(h.slack.callsTo('chat.postEphemeral')).toEqual([]);
    expect(h.slack.tenant().assistantThread(DM, said.ts)).toBeUndefined();
    expect(h.sim.requests).toHaveLength(0);
  });

  it('an app moved from assistant_view keeps its pane threads, and serves the Messages tab after the switch', async () => {
    await h.boot({ env });
    const pane = h.slack.people.opensAssistant(USER_ID, { context: CHANNEL_ID });
    await h.deliver(pane.events);
    await eventually(() => pane.thread.suggestedPrompts, 5_000, 'the pane’s prompts');
    await h.deliver(h.slack.people.says(USER_ID, DM, 'Document the pane', { threadTs: pane.threadTs }).events);
    await h.jobOf(DM, pane.threadTs, ['proj_b']);

    agentView(); // the manifest switched to agent_view
    await opensTab(h, GENERAL);
    const said = h.slack.people.says(USER_ID, DM, 'Document the tab');
    await h.deliver(said.events);
    await h.jobOf(DM, said.ts, [TEST_PROJECT_ID]);
    await h.deliver(h.slack.people.says(USER_ID, DM, 'Add an example', { threadTs: pane.threadTs }).events);
    await eventually(() => h.followUps().length === 1, 5_000, 'the follow-up in the pane’s thread');
    expect(h.followUps()[0]?.path).toContain('/proj_b/');
    expect(creates()).toEqual([
      { path: '/v2/agent/proj_b/job', prompt: 'Document the pane' },
      { path: `/v2/agent/${TEST_PROJECT_ID}/job`, prompt: 'Document the tab' },
    ]);
  });
});
