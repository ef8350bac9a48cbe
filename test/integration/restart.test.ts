import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/fake-slack-api.js';
import { postForm } from '../fakes/signed-request.js';
import { slashCommand } from '../fixtures/slack.js';
import { type AppProcess, startAppProcess } from '../support/app-process.js';
import { dropNamespace, redisAvailable, TEST_REDIS_URL, testNamespace } from '../support/redis.js';
import { eventually, testEnv } from '../support/test-app.js';

describe.skipIf(!redisAvailable)('restart (real process, SIGTERM, Redis store)', { timeout: 60_000 }, () => {
  let slack: FakeSlackApi;
  let sim: Simulator;
  let namespace: string;
  let running: AppProcess | undefined;

  beforeEach(async () => {
    namespace = testNamespace();
    slack = await startFakeSlackApi();
    sim = await startSimulator({ jobDurationMs: 60_000 });
  });

  afterEach(async () => {
    await running?.kill('SIGKILL');
    await sim.close();
    await slack.close();
    await dropNamespace(namespace);
  });

  const env = () => ({
    ...testEnv(slack, sim.url, { REDIS_URL: TEST_REDIS_URL, LOG_LEVEL: 'info' }),
    STORE_NAMESPACE: namespace,
  });

  it('resumes tracking after SIGTERM and posts the pull request exactly once', async () => {
    running = await startAppProcess(env());
    await postForm(running.url, slashCommand({ text: 'Document pagination', response_url: slack.responseUrl() }));
    await eventually(() => sim.counts().creates === 1, 5_000, 'job created');
    const update = await eventually(() =>
      slack.callsTo('chat.update').find((c) => JSON.stringify(c.args.blocks).includes('job `')),
    );
    const id = JSON.stringify(update.args.blocks).match(/job `([^`]+)`/)?.[1] as string;

    expect(await running.kill('SIGTERM')).toBe(0);
    expect(running.output()).toContain('app.stopped');
    sim.endJob(id, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/77' });

    running = await startAppProcess(env());
    const posts = () =>
      slack
        .callsTo('chat.postMessage')
        .filter((c) => c.args.thread_ts === update.args.ts && String(c.args.text).includes('/pull/77'));
    await eventually(() => posts().length === 1, 10_000, 'outcome after restart');
    await new Promise((r) => setTimeout(r, 500));
    expect(posts()).toHaveLength(1);
  });

  it('on SIGTERM mid-create, finishes starting the acknowledged job (bound, tracked) before exiting', async () => {
    running = await startAppProcess(env());
    sim.injectFault({ kind: 'slow', delayMs: 800, count: 1, match: { method: 'POST' } });
    await postForm(running.url, slashCommand({ text: 'Slow to start', response_url: slack.responseUrl() }));
    await eventually(() => slack.callsTo('chat.postMessage').length === 1, 5_000, 'root message');
    expect(sim.counts().creates).toBe(0); // the create is still in flight

    expect(await running.kill('SIGTERM')).toBe(0);
    expect(sim.counts().creates).toBe(1);
    const update = slack.callsTo('chat.update').find((c) => JSON.stringify(c.args.blocks).includes('job `'));
    const id = JSON.stringify(update?.args.blocks).match(/job `([^`]+)`/)?.[1] as string;
    expect(id).toBeDefined();

    sim.endJob(id, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/78' });
    running = await startAppProcess(env());
    await eventually(
      () => slack.callsTo('chat.postMessage').filter((c) => String(c.args.text).includes('/pull/78')).length === 1,
      10_000,
      'outcome of the job started during shutdown',
    );
  });
});
