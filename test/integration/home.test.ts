import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/fake-slack-api.js';
import { postForm, postJson } from '../fakes/signed-request.js';
import { homeOpened } from '../fixtures/conversation.js';
import { CHANNEL_ID, slashCommand, USER_ID } from '../fixtures/slack.js';
import { dropNamespace, storeKinds, testNamespace } from '../support/redis.js';
import { eventually, startTestApp, TEST_PROJECT_ID, type TestApp } from '../support/test-app.js';

const BOB = 'U456BOB';

describe.each(storeKinds)('App Home ($kind store)', ({ kind, redisUrl, available }) => {
  let slack: FakeSlackApi;
  let sim: Simulator;
  let app: TestApp;
  let namespace: string;

  beforeEach(async (context) => {
    if (!available) context.skip();
    namespace = testNamespace();
    slack = await startFakeSlackApi();
    sim = await startSimulator({ jobDurationMs: 60_000 });
    app = await startTestApp(slack, sim.url, { redisUrl, namespace });
  });

  afterEach(async () => {
    await app?.stop();
    await sim?.close();
    await slack?.close();
    if (kind === 'redis' && available) await dropNamespace(namespace);
  });

  async function openTab(user: string, tab: 'home' | 'messages') {
    expect((await postJson(app.url, homeOpened(user, tab))).status).toBe(200);
  }

  const published = (user: string) => slack.callsTo('views.publish').filter((c) => c.args.user_id === user);
  const lastHome = (user: string) => JSON.stringify(published(user).at(-1)?.args.view);
  const settle = (ms = 400) => new Promise((r) => setTimeout(r, ms));

  async function startJob(user: string, prompt: string) {
    await postForm(app.url, slashCommand({ user_id: user, text: prompt }));
    const created = () => sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/job'));
    const before = created().length;
    await eventually(() => created().length > before || created().some((r) => JSON.stringify(r.body).includes(prompt)));
    const [ref] = await eventually(async () => {
      const refs = await app.app.deps.store.jobs.forUser(user, 10);
      const records = await Promise.all(refs.map((r) => app.app.deps.store.jobs.get(r)));
      return records.some((r) => r?.prompt === prompt) && refs;
    });
    return ref as { project: string; jobId: string };
  }

  it('shows the owner their own jobs (prompt, status, age, project, thread, PR) and quota; another person sees none of it', async () => {
    const alices = await startJob(USER_ID, 'Document the retry policy for <alice>');
    await startJob(BOB, 'Bob’s secret plan');
    sim.endJob(alices.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/77' });
    await eventually(async () => (await app.app.deps.store.jobs.get(alices))?.ended === 'pull_request');

    await openTab(USER_ID, 'home');
    const home = await eventually(() => published(USER_ID).length && lastHome(USER_ID));
    expect(home).toContain('Your Mintlify agent jobs');
    expect(home).toContain('>Document the retry policy for &lt;alice&gt;');
    expect(home).toContain('Pull request ready');
    expect(home).toContain('<https://github.com/acme/docs/pull/77|Pull request>');
    expect(home).toContain(`<https://acme.slack.com/archives/${CHANNEL_ID}/p`);
    expect(home).toMatch(/\d+s ago/);
    expect(home).toContain(
      `\`${TEST_PROJECT_ID}\` · new jobs: 2 of 100 used, 98 left · follow-ups: 0 of 100 used, 100 left`,
    );
    expect(home).toContain('How to start a job');
    expect(home).not.toContain('secret plan');

    await openTab(BOB, 'home');
    const bobs = await eventually(() => published(BOB).length && lastHome(BOB));
    expect(bobs).toContain('Bob’s secret plan');
    expect(bobs).toContain('Working');
    expect(bobs).not.toContain('retry policy for');
    expect(bobs).not.toContain('pull/77');
  });

  it('shows a person with no jobs the how-to', async () => {
    await openTab('U777NEW', 'home');
    const home = await eventually(() => published('U777NEW').length && lastHome('U777NEW'));
    expect(home).toContain('You have not started a job yet.');
    expect(home).toContain('How to start a job');
  });

  it('is refreshed when one of the person’s jobs changes state while Home is their last opened tab, not after they left it', async () => {
    await openTab(USER_ID, 'home');
    await eventually(() => published(USER_ID).length === 1);
    const first = await startJob(USER_ID, 'First job');
    await eventually(() => lastHome(USER_ID).includes('First job'), 5_000, 'home refreshed for the new job');
    sim.endJob(first.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/5' });
    await eventually(() => lastHome(USER_ID).includes('pull/5'), 5_000, 'home refreshed for the outcome');

    await openTab(USER_ID, 'messages');
    await settle();
    const count = published(USER_ID).length;
    const second = await startJob(USER_ID, 'Second job');
    sim.endJob(second.jobId, { status: 'failed' });
    await eventually(async () => (await app.app.deps.store.jobs.get(second))?.ended === 'failed');
    await settle();
    expect(published(USER_ID)).toHaveLength(count);
    expect(published(BOB)).toHaveLength(0);
  });
});
