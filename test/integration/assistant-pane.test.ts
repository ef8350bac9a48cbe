import { describe, expect, it } from 'vitest';
import { paneCopy } from '../../src/agent/messages.js';
import { keys } from '../../src/store/keys.js';
import type { AssistantThread } from '../../tools/slack-standin/index.js';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { type Harness, useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { fingerprintOf, oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';

const LONG_JOB_MS = 60_000;
const KEY_A = 'mint_acme_4f1c2d9e8b7aAAAA';
const KEY_B = 'mint_globex_9a8b7c6d5e4fBBBB';
const GENERAL = 'C234GENERAL';
/** The channel next to the pane routes to its own project. */
const env = { MINTLIFY_CHANNEL_PROJECTS: `${CHANNEL_ID}:proj_b` };

/** `user` opens the pane next to `channel`; resolves once the app offered its suggested prompts. */
async function opensPane(h: Harness, channel: string): Promise<AssistantThread> {
  const opened = h.slack.people.opensAssistant(USER_ID, { context: channel });
  await h.deliver(opened.events);
  await eventually(() => opened.thread.suggestedPrompts, 5_000, 'the suggested prompts');
  return opened.thread;
}

const transports = [
  ...storeKinds.map((store) => ({ name: `HTTP, ${store.label}`, store, socketMode: false })),
  { name: 'Socket Mode, memory store', store: storeKinds[0], socketMode: true },
];

describe.each(transports)('the assistant pane ($name)', ({ store, socketMode }) => {
  const h = useHarness({ store, simulator: { jobDurationMs: LONG_JOB_MS }, slack: { socketMode } });
  const creates = () => h.creates().map((r) => ({ path: r.path, prompt: (r.body as { prompt: string }).prompt }));

  it('offers prompts, starts a job on the project of the channel next to it, titled and with a status, answers in the thread and takes follow-ups', async () => {
    await h.boot({ env });
    const thread = await opensPane(h, CHANNEL_ID);
    expect(thread.suggestedPrompts).toEqual({ title: paneCopy.promptsTitle, prompts: paneCopy.prompts });

    await h.deliver(
      h.say(USER_ID, thread.channel, 'Document the <retry> policy', { threadTs: thread.threadTs }).events,
    );
    const { jobId } = await h.jobOf(thread.channel, thread.threadTs, ['proj_b']);
    expect(creates()).toEqual([{ path: '/v2/agent/proj_b/job', prompt: 'Document the <retry> policy' }]);
    expect(thread.title).toBe('Document the <retry> policy');
    expect(thread.statuses).toEqual([paneCopy.starting]);
    // The job's first post in the thread cleared it, as Slack does.
    expect(thread.status).toBeUndefined();
    expect(h.threadPosts(thread.threadTs)[0]?.args.channel).toBe(thread.channel);

    await h.deliver(h.say(USER_ID, thread.channel, 'Include the backoff table', { threadTs: thread.threadTs }).events);
    await eventually(() => h.followUps().length === 1, 5_000, 'the follow-up');
    expect(h.followUps()[0]?.body).toEqual({ prompt: 'Include the backoff table' });
    expect(h.followUps()[0]?.path).toContain('/proj_b/');
    expect(h.creates()).toHaveLength(1);
    expect(thread.title).toBe('Document the <retry> policy'); // a follow-up keeps the thread's title

    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/7' });
    const outcome = await eventually(() =>
      h.slack.callsTo('chat.postMessage').find((c) => String(c.args.text).includes('pull/7')),
    );
    expect(outcome.args).toMatchObject({ channel: thread.channel, thread_ts: thread.threadTs });
  });

  it('follows the person: after moving to another channel, a new job uses that channel’s project', async () => {
    await h.boot({ env });
    const thread = await opensPane(h, CHANNEL_ID);
    await h.deliver(h.slack.people.movesAssistant(thread, GENERAL));
    // Saved before the next message: the context store is the app's, read by every instance.
    await eventually(async () => {
      const saved = await h.app.app.deps.store.kv.get<{ channel_id?: string }>(
        keys.paneContext(thread.channel, thread.threadTs),
      );
      return saved?.channel_id === GENERAL;
    });
    await h.deliver(h.say(USER_ID, thread.channel, 'Fix the quickstart', { threadTs: thread.threadTs }).events);
    await h.jobOf(thread.channel, thread.threadTs, [TEST_PROJECT_ID]);
    expect(creates()).toEqual([{ path: `/v2/agent/${TEST_PROJECT_ID}/job`, prompt: 'Fix the quickstart' }]);
  });

  it('answers `help` in the thread itself, with no status and no title, and starts nothing', async () => {
    await h.boot({ env });
    const thread = await opensPane(h, CHANNEL_ID);
    await h.deliver(h.say(USER_ID, thread.channel, 'help', { threadTs: thread.threadTs }).events);
    const usage = await eventually(() => h.threadPosts(thread.threadTs)[0], 5_000, 'the usage');
    expect(usage.args.text).toContain('Ask the Mintlify agent');
    expect(usage.args.text).toContain('proj_b');
    expect(thread.statuses).toEqual([]);
    expect(thread.title).toBeUndefined();
    expect(h.sim.requests).toHaveLength(0);
  });

  it('a message without words starts nothing, no title, no status; a redelivered prompt is answered once', async () => {
    await h.boot({ env });
    const thread = await opensPane(h, CHANNEL_ID);
    await h.deliver(h.say(USER_ID, thread.channel, ':tada: !!', { threadTs: thread.threadTs }).events);
    const click = h.slack.people.picksPrompt(thread, 'My jobs');
    await h.deliver(click.events);
    await h.deliver(click.events, { retry: 1 });
    await eventually(() => h.threadPosts(thread.threadTs)[0], 5_000, 'no jobs yet');
    await settle();
    expect(h.threadPosts(thread.threadTs)).toHaveLength(1);
    expect(thread.statuses).toEqual([]);
    expect(thread.title).toBeUndefined();
    expect(h.sim.requests).toHaveLength(0);
  });

  it('the suggested prompts do what they say: visitors of the project next to the pane, my jobs', async () => {
    await h.boot({ env });
    const thread = await opensPane(h, CHANNEL_ID);
    const click = (title: string) => h.deliver(h.slack.people.picksPrompt(thread, title).events);
    const answers = () => h.slack.callsTo('chat.postEphemeral').filter((c) => c.args.thread_ts === thread.threadTs);

    await click('This week’s visitors');
    const report = await eventually(() => answers()[0], 5_000, 'the report');
    expect(JSON.stringify(report.args.blocks)).toContain('Unique visitors · proj_b');
    expect(report.args).toMatchObject({ channel: thread.channel, user: USER_ID });
    expect(thread.statuses).toEqual([]);

    await click('My jobs');
    const none = await eventually(() => h.threadPosts(thread.threadTs)[0], 5_000, 'no jobs yet');
    expect(none.args.text).toContain('not started a job yet');
    await h.deliver(h.say(USER_ID, thread.channel, 'Document webhooks', { threadTs: thread.threadTs }).events);
    await h.jobOf(thread.channel, thread.threadTs, ['proj_b']);
    await click('My jobs');
    const listed = await eventually(
      () => h.threadPosts(thread.threadTs).find((c) => String(c.args.text).includes('Your newest')),
      5_000,
      'the list',
    );
    expect(listed.args.text).toContain('`proj_b`');
    expect(listed.args.text).toContain('>Document webhooks');
    expect(h.creates()).toHaveLength(1);
  });
});

describe.each(storeKinds)('the assistant pane in one of many workspaces (HTTP, $label)', (store) => {
  const h = useHarness({
    store,
    simulator: { jobDurationMs: LONG_JOB_MS, keys: { keys: { [KEY_A]: ['proj_a'], [KEY_B]: ['proj_b'] } } },
  });
  const ws = new Workspaces(h);

  it('works with that workspace’s own project and key, its thread context kept in its own scope', async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    for (const [team, user, apiKey, project] of [
      ['T1', 'U123ALICE', KEY_A, 'proj_a'],
      ['T2', 'U2ANA', KEY_B, 'proj_b'],
    ] as const) {
      await ws.install(team, user);
      expect(await ws.connect(team, user, { apiKey, project })).toBeUndefined();
    }
    h.sim.requests.splice(0); // from here on, only the pane's requests

    const opened = h.slack.people.opensAssistant('U2ANA', { context: 'C2DOCS', teamId: 'T2' });
    await h.deliver(opened.events);
    await eventually(() => opened.thread.suggestedPrompts, 5_000, 'the suggested prompts');
    const where = { threadTs: opened.threadTs, teamId: 'T2' };
    await h.deliver(h.slack.people.says('U2ANA', opened.channel, 'Document the Globex pane', where).events);
    await eventually(() => h.creates().length === 1, 5_000, 'the job');
    expect(h.creates()[0]?.path).toBe('/v2/agent/proj_b/job');
    expect(ws.keysUsedFor('proj_b')).toEqual(new Set([fingerprintOf(KEY_B)]));
    expect(opened.thread.title).toBe('Document the Globex pane');
    const key = keys.paneContext(opened.channel, opened.threadTs);
    const { store: root } = h.app.app.deps;
    expect(await root.scoped('T2').kv.get(key)).toMatchObject({ channel_id: 'C2DOCS' });
    expect(await root.kv.get(key)).toBeUndefined();
  });
});
