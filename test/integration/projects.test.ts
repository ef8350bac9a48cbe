import { describe, expect, it } from 'vitest';
import { weekFeedback } from '../../src/agent/index.js';
import { createQuota } from '../../src/agent/quota.js';
import { ACTION_IDS } from '../../src/visitors/blocks.js';
import { keyFingerprint } from '../../tools/simulator/server.js';
import { feedbackClick } from '../../tools/slack-standin/index.js';
import type { SlackCall } from '../fakes/fake-slack-api.js';
import { postInteraction } from '../fakes/signed-request.js';
import { blockAction, CHANNEL_ID, threadReply } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, TEST_API_KEY, TEST_PROJECT_ID } from '../support/test-app.js';

/** #api-docs is routed to proj_api, which has its own key; #handbook to proj_hb, on the default key. */
const API_CHANNEL = 'C0APIDOCS';
const HB_CHANNEL = 'C0HANDBOOK';
const API_KEY_B = 'mint_api_project_0123secret';
const ROUTES = `${API_CHANNEL}:proj_api,${HB_CHANNEL}:proj_hb`;
const KEYS = `proj_api:${API_KEY_B}`;

describe.each(storeKinds)('several projects ($label)', (store) => {
  const h = useHarness({
    store,
    // proj_api accepts only its own key, every other project only the default one: a wrong key is a 401.
    simulator: {
      jobDurationMs: 60_000,
      projectKeys: { proj_api: API_KEY_B, proj_hb: TEST_API_KEY, [TEST_PROJECT_ID]: TEST_API_KEY },
    },
    env: { MINTLIFY_CHANNEL_PROJECTS: ROUTES, MINTLIFY_API_KEYS: KEYS },
    boot: true,
  });

  /** Runs `/agent` in `channel` and waits for its job; returns the project it was created in and its thread. */
  async function startedJob(text: string, channel: string) {
    const before = h.creates().length;
    const { jobId, rootTs } = await h.startJob(text, { channel });
    return { project: h.creates()[before]?.path.split('/')[3], jobId, rootTs };
  }

  const blocksOf = (call: SlackCall | undefined) => JSON.stringify(call?.args.blocks ?? '');
  /**
   * What proj_api was asked since `before` by the instance started without it: the one the restart stopped may still
   * finish a poll, with proj_api's own key, which the new one does not have.
   */
  const askedAfterRestart = (before: number) =>
    h.sim.requests
      .slice(before)
      .filter((r) => r.path.startsWith('/v2/agent/proj_api/'))
      .filter((r) => r.method !== 'GET' || r.keyFingerprint !== keyFingerprint(API_KEY_B));

  /** Each request to a project's paths carried that project's key, and none was refused. */
  function expectKeysPerProject() {
    for (const r of h.sim.requests) {
      const project = r.path.split('/')[3];
      expect(r.keyFingerprint, r.path).toBe(keyFingerprint(project === 'proj_api' ? API_KEY_B : TEST_API_KEY));
    }
    expect(h.app.logs()).not.toContain('unauthorized');
  }

  it('routes /agent, its polls, its follow-up and its outcome by channel, each project with its own key', async () => {
    const api = await startedJob('Document the v2 endpoints', API_CHANNEL);
    const plain = await startedJob('Fix the quickstart', CHANNEL_ID);
    expect([api.project, plain.project]).toEqual(['proj_api', TEST_PROJECT_ID]);

    // The root names the project when the bot serves several.
    const apiRoot = h.slack.callsTo('chat.update').find((c) => c.args.ts === api.rootTs);
    expect(blocksOf(apiRoot)).toContain('project `proj_api`');

    await h.deliver(threadReply(api.rootTs, { channel: API_CHANNEL, text: 'Also the changelog' }));
    await eventually(() => h.sim.requests.find((r) => r.path === `/v2/agent/proj_api/job/${api.jobId}/message`));

    h.sim.endJob(api.jobId, { status: 'completed', prLink: 'https://github.com/acme/api-docs/pull/7' });
    await eventually(() => h.threadPosts(api.rootTs).length === 1, 5_000, 'the PR in the thread');
    expect(h.threadPosts(api.rootTs)[0]?.args.text).toContain('https://github.com/acme/api-docs/pull/7');
    expect(h.sim.requests.some((r) => r.method === 'GET' && r.path === `/v2/agent/proj_api/job/${api.jobId}`)).toBe(
      true,
    );
    expect(h.sim.requests.some((r) => r.path.includes(`${TEST_PROJECT_ID}/job/${api.jobId}`))).toBe(false);
    expectKeysPerProject();
  });

  it('--project overrides the channel for one job; an unknown project is refused privately with the list', async () => {
    const job = await startedJob('--project proj_hb Add the holiday policy', API_CHANNEL);
    expect(job.project).toBe('proj_hb');
    expect(h.creates()[0]?.body).toEqual({ prompt: 'Add the holiday policy' });

    const { ack: refused } = await h.command('/agent --project proj_nope Add the holiday policy', {
      channel: API_CHANNEL,
    });
    expect(refused?.text).toContain("I don't serve a project `proj_nope`");
    expect(refused?.text).toContain('This channel uses project `proj_api`');
    expect(refused?.text).toContain('`proj_test` (default), `proj_api`, `proj_hb`');
    expect(refused?.text).toContain('>Add the holiday policy');
    expect(h.creates()).toHaveLength(1);
  });

  it('/agent projects and /agent help say which project this channel uses and list the others', async () => {
    const { ack: listed } = await h.command('/agent projects', { channel: HB_CHANNEL });
    expect(listed?.text).toBe(
      'This channel uses project `proj_hb`. Projects I know: `proj_test` (default), `proj_api`, `proj_hb`. Pick another with `/agent --project &lt;id&gt; &lt;instruction&gt;`.',
    );
    const { ack: help } = await h.command('/agent help', { channel: 'D0DIRECT' });
    expect(help?.text).toContain('This channel uses project `proj_test`.');
  });

  it('counts the hourly limits per project and names the project when refusing', async () => {
    const quota = createQuota(h.app.app.deps.store);
    for (let i = 0; i < 100; i++) await quota.take('proj_api', 'create');
    await h.command('/agent One more job', { channel: API_CHANNEL });
    const reply = await h.answer();
    expect(reply.args.text).toContain('limit of new jobs for project `proj_api`');
    expect(reply.args.text).toContain('>One more job');
    // Another project's budget is untouched.
    expect((await startedJob('Still fine here', HB_CHANNEL)).project).toBe('proj_hb');
  });

  it('/visitors reports the channel’s project (named in the header), --project overrides, pages and CSV keep it', async () => {
    await h.command('/visitors 2026-11-01 2026-11-08', { channel: API_CHANNEL });
    const report = await h.answer();
    expect(blocksOf(report)).toContain('Unique visitors · proj_api · 1–8 Nov 2026');
    expect(h.sim.requests.at(-1)?.path).toBe('/v1/analytics/proj_api/visitors');

    await h.command('/visitors --project proj_hb 2026-11-01 2026-11-08', { channel: API_CHANNEL });
    const other = await h.answer();
    expect(blocksOf(other)).toContain('Unique visitors · proj_hb · 1–8 Nov 2026');
    const next = (other.args.blocks as { elements?: { action_id?: string; value?: string }[] }[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === ACTION_IDS.next)?.value as string;

    await postInteraction(
      h.app.url,
      blockAction(ACTION_IDS.next, next, { response_url: h.slack.responseUrl('v3'), channel: { id: API_CHANNEL } }),
    );
    await h.answer('v3');
    expect(h.sim.requests.at(-1)?.path).toBe('/v1/analytics/proj_hb/visitors');

    await postInteraction(
      h.app.url,
      blockAction(ACTION_IDS.csv, next, { response_url: h.slack.responseUrl('v4'), channel: { id: API_CHANNEL } }),
    );
    const upload = await eventually(() => h.slack.callsTo('files.getUploadURLExternal')[0], 10_000, 'the CSV');
    expect(upload.args.filename).toBe('visitors_proj_hb_2026-11-01_2026-11-08.csv');

    const { ack: unknown } = await h.command('/visitors --project proj_nope 7d', { channel: API_CHANNEL });
    expect(unknown).toBeUndefined();
    const refusal = await h.answer();
    expect(String(refusal.args.text)).toContain("I don't serve a project `proj_nope`");
    expectKeysPerProject();
  });

  // Only a shared store outlives the app: on memory a restart forgets every job by design.
  if (store.kind !== 'redis') return;
  it('a job keeps its project after the routing changes and the app restarts', async () => {
    const job = await startedJob('Document the v2 endpoints', API_CHANNEL);
    expect(job.project).toBe('proj_api');

    // #api-docs now belongs to the handbook; proj_api is still served (it has a key), just no longer routed here.
    await h.restart({ env: { MINTLIFY_CHANNEL_PROJECTS: `${API_CHANNEL}:proj_hb` } });
    await h.deliver(threadReply(job.rootTs, { channel: API_CHANNEL, text: 'Also the changelog' }));
    await eventually(() => h.sim.requests.find((r) => r.path === `/v2/agent/proj_api/job/${job.jobId}/message`));
    h.sim.endJob(job.jobId, { status: 'completed', prLink: 'https://github.com/acme/api-docs/pull/8' });
    await eventually(() => h.threadPosts(job.rootTs).length === 1, 5_000, 'the PR after the restart');
    expect(h.sim.requests.filter((r) => r.path.startsWith('/v2/agent/proj_hb/'))).toHaveLength(0);
    expectKeysPerProject();
  });

  it('a job of a project taken out of the configuration is not asked about with the default key; its thread and root say so', async () => {
    const job = await startedJob('Document the v2 endpoints', API_CHANNEL);
    expect(job.project).toBe('proj_api');

    // The operator drops proj_api (its route and its key) at the next deploy: the app no longer serves it.
    const before = h.sim.requests.length;
    await h.restart({ env: { MINTLIFY_CHANNEL_PROJECTS: `${HB_CHANNEL}:proj_hb`, MINTLIFY_API_KEYS: '' } });
    const note = await eventually(() => h.threadPosts(job.rootTs)[0], 5_000, 'the note in the thread');
    expect(String(note.args.text)).toContain(
      'I stopped following this job: project `proj_api` is no longer configured for this app',
    );
    expect(String(note.args.text)).toContain('Once whoever runs this app adds the project back');
    expect(String(note.args.text)).not.toMatch(/disconnect|Home/);
    await eventually(() => h.lastRootUpdate(job.rootTs).includes('project no longer configured'), 5_000, 'the root');
    expect(h.lastRootUpdate(job.rootTs)).not.toMatch(/Working|disconnected|Home/);
    await settle(500);
    expect(h.threadPosts(job.rootTs)).toHaveLength(1);
    expect(askedAfterRestart(before)).toEqual([]);
  });

  it('a reply in the thread of a project taken out of the configuration is told so privately, with its text', async () => {
    const job = await startedJob('Document the v2 endpoints', API_CHANNEL);
    const before = h.sim.requests.length;
    await h.restart({ env: { MINTLIFY_CHANNEL_PROJECTS: `${HB_CHANNEL}:proj_hb`, MINTLIFY_API_KEYS: '' } });
    await h.deliver(threadReply(job.rootTs, { channel: API_CHANNEL, text: 'Mention the <b> headers too' }));
    const answer = await eventually(() => h.slack.callsTo('chat.postEphemeral')[0], 5_000, 'the answer');
    expect(answer.args).toMatchObject({ channel: API_CHANNEL, thread_ts: job.rootTs });
    expect(String(answer.args.text)).toContain(
      'Project `proj_api` is no longer configured for this app, so nothing was sent',
    );
    expect(String(answer.args.text)).toContain('>Mention the &lt;b&gt; headers too');
    expect(String(answer.args.text)).not.toMatch(/disconnect|Home/);
    await settle(300);
    expect(askedAfterRestart(before)).toEqual([]);
  });

  it('👍/👎 on a result of a project taken out of the configuration is told so, not called another workspace’s', async () => {
    const job = await startedJob('Document the v2 endpoints', API_CHANNEL);
    h.sim.endJob(job.jobId, { status: 'completed', prLink: 'https://github.com/acme/api-docs/pull/9' });
    const outcome = await eventually(
      () => h.slack.messages.find((m) => m.thread_ts === job.rootTs && JSON.stringify(m.blocks).includes('feedback_')),
      5_000,
      'the outcome with its feedback buttons',
    );
    await h.restart({ env: { MINTLIFY_CHANNEL_PROJECTS: `${HB_CHANNEL}:proj_hb`, MINTLIFY_API_KEYS: '' } });
    for (const choice of ['positive', 'negative'] as const) {
      const responseUrl = h.slack.responseUrl(`vote-${choice}`);
      await h.interact(feedbackClick(h.slack, { user: 'U123ALICE', message: outcome, choice, responseUrl }));
      const note = await eventually(() => h.slack.callsTo(`response_url:vote-${choice}`)[0], 5_000, 'the note');
      expect(String(note.args.text)).toContain('Project `proj_api` is no longer configured for this app');
      expect(String(note.args.text)).not.toContain('another workspace');
    }
    expect(h.slack.views.filter((v) => v.view.callback_id === 'agent.feedback_modal')).toEqual([]);
    expect(await weekFeedback(h.app.app.deps, 'proj_api')).toEqual({ up: 0, down: 0 });
  });
});
