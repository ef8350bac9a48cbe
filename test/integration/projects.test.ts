import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createQuota } from '../../src/agent/quota.js';
import { keyFingerprint, type Simulator, startSimulator } from '../../src/simulator/server.js';
import { ACTION_IDS } from '../../src/visitors/blocks.js';
import { type FakeSlackApi, type SlackCall, startFakeSlackApi } from '../fakes/fake-slack-api.js';
import { postForm, postInteraction, postJson } from '../fakes/signed-request.js';
import { blockAction, CHANNEL_ID, slashCommand, threadReply } from '../fixtures/slack.js';
import { dropNamespace, storeKinds, testNamespace } from '../support/redis.js';
import { eventually, startTestApp, TEST_API_KEY, TEST_PROJECT_ID, type TestApp } from '../support/test-app.js';

/** #api-docs is routed to proj_api, which has its own key; #handbook to proj_hb, on the default key. */
const API_CHANNEL = 'C0APIDOCS';
const HB_CHANNEL = 'C0HANDBOOK';
const API_KEY_B = 'mint_api_project_0123secret';
const ROUTES = `${API_CHANNEL}:proj_api,${HB_CHANNEL}:proj_hb`;
const KEYS = `proj_api:${API_KEY_B}`;

describe.each(storeKinds)('several projects ($kind store)', ({ kind, redisUrl, available }) => {
  let slack: FakeSlackApi;
  let sim: Simulator;
  let app: TestApp | undefined;
  let namespace: string;

  async function boot(env: Record<string, string> = {}) {
    app = await startTestApp(slack, sim.url, {
      redisUrl,
      namespace,
      env: { MINTLIFY_CHANNEL_PROJECTS: ROUTES, MINTLIFY_API_KEYS: KEYS, ...env },
    });
    return app;
  }
  const running = () => app as TestApp;

  beforeEach(async (context) => {
    if (!available) context.skip();
    namespace = testNamespace();
    slack = await startFakeSlackApi();
    // proj_api accepts only its own key, every other project only the default one: a wrong key is a 401.
    sim = await startSimulator({
      jobDurationMs: 60_000,
      projectKeys: { proj_api: API_KEY_B, proj_hb: TEST_API_KEY, [TEST_PROJECT_ID]: TEST_API_KEY },
    });
  });

  afterEach(async () => {
    await app?.stop();
    app = undefined;
    await sim?.close();
    await slack?.close();
    if (kind === 'redis' && available) await dropNamespace(namespace);
  });

  async function command(name: '/agent' | '/visitors', text: string, channel: string, responseId = 'cmd') {
    const res = await postForm(
      running().url,
      slashCommand({ command: name, text, channel_id: channel, response_url: slack.responseUrl(responseId) }),
    );
    expect(res.status).toBe(200);
    const body = await res.text();
    return body ? (JSON.parse(body) as { text?: string }) : undefined;
  }

  /** Runs `/agent` and waits for its job; returns where it was created and its thread. */
  async function startedJob(text: string, channel: string) {
    const before = creates().length;
    await command('/agent', text, channel);
    const create = await eventually(() => creates()[before], 5_000, 'the job created');
    const update = await eventually(
      () => slack.callsTo('chat.update').find((c) => c.args.channel === channel && /job `/.test(blocksOf(c))),
      5_000,
      'root message update',
    );
    const jobId = /job `([^`]+)`/.exec(blocksOf(update))?.[1] as string;
    return { project: create.path.split('/')[3], jobId, rootTs: update.args.ts as string };
  }

  const blocksOf = (call: SlackCall | undefined) => JSON.stringify(call?.args.blocks ?? '');
  const creates = () => sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/job'));
  const threadPosts = (rootTs: string) => slack.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === rootTs);
  const responses = (id = 'cmd') => slack.callsTo(`response_url:${id}`);
  /** Each request to a project's paths carried that project's key, and none was refused. */
  function expectKeysPerProject() {
    for (const r of sim.requests) {
      const project = r.path.split('/')[3];
      expect(r.keyFingerprint, r.path).toBe(keyFingerprint(project === 'proj_api' ? API_KEY_B : TEST_API_KEY));
    }
    expect(running().logs()).not.toContain('unauthorized');
  }

  it('routes /agent, its polls, its follow-up and its outcome by channel, each project with its own key', async () => {
    await boot();
    const api = await startedJob('Document the v2 endpoints', API_CHANNEL);
    const plain = await startedJob('Fix the quickstart', CHANNEL_ID);
    expect([api.project, plain.project]).toEqual(['proj_api', TEST_PROJECT_ID]);

    // The root names the project when the bot serves several.
    const apiRoot = slack.callsTo('chat.update').find((c) => c.args.ts === api.rootTs);
    expect(blocksOf(apiRoot)).toContain('project `proj_api`');

    await postJson(running().url, threadReply(api.rootTs, { channel: API_CHANNEL, text: 'Also the changelog' }));
    await eventually(() => sim.requests.find((r) => r.path === `/v2/agent/proj_api/job/${api.jobId}/message`));

    sim.endJob(api.jobId, { status: 'completed', prLink: 'https://github.com/acme/api-docs/pull/7' });
    await eventually(() => threadPosts(api.rootTs).length === 1, 5_000, 'the PR in the thread');
    expect(threadPosts(api.rootTs)[0]?.args.text).toContain('https://github.com/acme/api-docs/pull/7');
    expect(sim.requests.some((r) => r.method === 'GET' && r.path === `/v2/agent/proj_api/job/${api.jobId}`)).toBe(true);
    expect(sim.requests.some((r) => r.path.includes(`${TEST_PROJECT_ID}/job/${api.jobId}`))).toBe(false);
    expectKeysPerProject();
  });

  it('--project overrides the channel for one job; an unknown project is refused privately with the list', async () => {
    await boot();
    const job = await startedJob('--project proj_hb Add the holiday policy', API_CHANNEL);
    expect(job.project).toBe('proj_hb');
    expect(creates()[0]?.body).toEqual({ prompt: 'Add the holiday policy' });

    const refused = await command('/agent', '--project proj_nope Add the holiday policy', API_CHANNEL);
    expect(refused?.text).toContain("I don't serve a project `proj_nope`");
    expect(refused?.text).toContain('This channel uses project `proj_api`');
    expect(refused?.text).toContain('`proj_test` (default), `proj_api`, `proj_hb`');
    expect(refused?.text).toContain('>Add the holiday policy');
    expect(creates()).toHaveLength(1);
  });

  it('/agent projects and /agent help say which project this channel uses and list the others', async () => {
    await boot();
    const listed = await command('/agent', 'projects', HB_CHANNEL);
    expect(listed?.text).toBe(
      'This channel uses project `proj_hb`. Projects I know: `proj_test` (default), `proj_api`, `proj_hb`. Pick another with `/agent --project <id> <instruction>`.',
    );
    const help = await command('/agent', 'help', 'D0DIRECT');
    expect(help?.text).toContain('This channel uses project `proj_test`.');
  });

  it('counts the hourly limits per project and names the project when refusing', async () => {
    await boot();
    const quota = createQuota(running().app.deps.store);
    for (let i = 0; i < 100; i++) await quota.take('proj_api', 'create');
    await command('/agent', 'One more job', API_CHANNEL);
    const [reply] = await eventually(() => responses().length && responses());
    expect(reply?.args.text).toContain('limit of new jobs for project `proj_api`');
    expect(reply?.args.text).toContain('>One more job');
    // Another project's budget is untouched.
    expect((await startedJob('Still fine here', HB_CHANNEL)).project).toBe('proj_hb');
  });

  it('/visitors reports the channel’s project (named in the header), --project overrides, pages and CSV keep it', async () => {
    await boot();
    await command('/visitors', '2026-11-01 2026-11-08', API_CHANNEL, 'v1');
    const report = await eventually(() => responses('v1')[0]);
    expect(blocksOf(report)).toContain('Unique visitors · proj_api · 1–8 Nov 2026');
    expect(sim.requests.at(-1)?.path).toBe('/v1/analytics/proj_api/visitors');

    await command('/visitors', '--project proj_hb 2026-11-01 2026-11-08', API_CHANNEL, 'v2');
    const other = await eventually(() => responses('v2')[0]);
    expect(blocksOf(other)).toContain('Unique visitors · proj_hb · 1–8 Nov 2026');
    const next = (other.args.blocks as { elements?: { action_id?: string; value?: string }[] }[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === ACTION_IDS.next)?.value as string;

    await postInteraction(
      running().url,
      blockAction(ACTION_IDS.next, next, { response_url: slack.responseUrl('v3'), channel: { id: API_CHANNEL } }),
    );
    await eventually(() => responses('v3')[0]);
    expect(sim.requests.at(-1)?.path).toBe('/v1/analytics/proj_hb/visitors');

    await postInteraction(
      running().url,
      blockAction(ACTION_IDS.csv, next, { response_url: slack.responseUrl('v4'), channel: { id: API_CHANNEL } }),
    );
    const upload = await eventually(() => slack.callsTo('files.getUploadURLExternal')[0], 10_000, 'the CSV');
    expect(upload.args.filename).toBe('visitors_proj_hb_2026-11-01_2026-11-08.csv');

    const unknown = await command('/visitors', '--project proj_nope 7d', API_CHANNEL, 'v5');
    expect(unknown).toBeUndefined();
    const refusal = await eventually(() => responses('v5')[0]);
    expect(String(refusal.args.text)).toContain("I don't serve a project `proj_nope`");
    expectKeysPerProject();
  });

  // Only a shared store outlives the app: on memory a restart forgets every job by design.
  if (kind !== 'redis') return;
  it('a job keeps its project after the routing changes and the app restarts', async () => {
    await boot();
    const job = await startedJob('Document the v2 endpoints', API_CHANNEL);
    expect(job.project).toBe('proj_api');
    await running().stop();

    // #api-docs now belongs to the handbook; proj_api is still served (it has a key), just no longer routed here.
    await boot({ MINTLIFY_CHANNEL_PROJECTS: `${API_CHANNEL}:proj_hb` });
    await postJson(running().url, threadReply(job.rootTs, { channel: API_CHANNEL, text: 'Also the changelog' }));
    await eventually(() => sim.requests.find((r) => r.path === `/v2/agent/proj_api/job/${job.jobId}/message`));
    sim.endJob(job.jobId, { status: 'completed', prLink: 'https://github.com/acme/api-docs/pull/8' });
    await eventually(() => threadPosts(job.rootTs).length === 1, 5_000, 'the PR after the restart');
    expect(sim.requests.filter((r) => r.path.startsWith('/v2/agent/proj_hb/'))).toHaveLength(0);
    expectKeysPerProject();
  });
});
