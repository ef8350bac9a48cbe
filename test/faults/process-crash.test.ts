import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POSTING_CLAIM_MS } from '../../src/agent/poster.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/fake-slack-api.js';
import { postJson } from '../fakes/signed-request.js';
import { threadReply } from '../fixtures/slack.js';
import { type AppProcess, startAppProcess } from '../support/app-process.js';
import { eventually, testEnv } from '../support/test-app.js';
import {
  FAST_POLL,
  holdCpuLock,
  LEASE_MS,
  LONG_JOB_MS,
  type RedisServer,
  redisServerAvailable,
  type StartedJob,
  sleep,
  startJobVia,
  startRedisServer,
  threadPosts,
} from './support.js';

/**
 * The real entry point (`src/index.ts`) as child processes on one private Redis, killed with SIGKILL:
 * no shutdown hook runs, so leases are left to lapse (LEASE_MS = 2 × POLL_MAX_INTERVAL_MS + 1 s).
 */
describe.skipIf(!redisServerAvailable)('instances killed with SIGKILL', () => {
  let redis: RedisServer;
  let slack: FakeSlackApi;
  let sim: Simulator;
  const processes: AppProcess[] = [];
  let release: (() => void) | undefined;

  beforeAll(async () => {
    release = await holdCpuLock();
  }, 120_000);
  afterAll(() => release?.());

  beforeEach(async () => {
    redis = await startRedisServer();
    slack = await startFakeSlackApi();
    sim = await startSimulator({ jobDurationMs: LONG_JOB_MS });
  });

  afterEach(async () => {
    // AppProcess.kill waits for an exit that already happened when the child died by a signal: skip the dead.
    const alive = processes.splice(0).filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    await Promise.all(alive.map((p) => p.kill('SIGKILL')));
    await sim.close();
    await slack.close();
    await redis.stop();
  });

  async function spawnApp(env: Record<string, string> = {}): Promise<AppProcess> {
    const app = await startAppProcess(
      testEnv(slack, sim.url, { ...FAST_POLL, REDIS_URL: redis.url, LOG_LEVEL: 'info', ...env }),
    );
    processes.push(app);
    return app;
  }

  const getsFor = (jobId: string) => sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/${jobId}`));
  const outcomesPosted = (app: AppProcess) => app.output().match(/"event":"poller\.outcome_posted"/g)?.length ?? 0;

  it('restarted after a SIGKILL mid-poll, a new instance posts every outcome exactly once', async () => {
    const first = await spawnApp();
    const jobs: StartedJob[] = [];
    for (let i = 0; i < 3; i++) jobs.push(await startJobVia(first.url, slack, `Survive a crash ${i}`));
    const [a, b, c] = jobs as [StartedJob, StartedJob, StartedJob];

    // One outcome is posted before the crash and must not be posted again by the next instance.
    sim.endJob(a.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/1' });
    await eventually(() => threadPosts(slack, a.rootTs).length === 1, 5_000, 'outcome before the crash');

    // Kill it while a poll is in flight: the simulator holds the next GET for job b.
    sim.injectFault({ kind: 'slow', delayMs: 3_000, count: 1, match: { method: 'GET', path: new RegExp(b.jobId) } });
    const seen = getsFor(b.jobId).length;
    await eventually(() => getsFor(b.jobId).length > seen, 5_000, 'a poll in flight');
    expect(await first.kill('SIGKILL')).toBeNull(); // killed by the signal, no shutdown hook
    expect(first.output()).not.toContain('app.stopping');

    sim.endJob(b.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/2' });
    sim.endJob(c.jobId, { status: 'failed' });

    const second = await spawnApp();
    const restartedAt = Date.now();
    await eventually(
      () => threadPosts(slack, b.rootTs).length === 1 && threadPosts(slack, c.rootTs).length === 1,
      LEASE_MS + 6_000,
      'outcomes after the restart',
    );
    // The dead instance's leases lapse first; nothing waits much longer than that.
    const postedAt = Math.max(...[b, c].map((job) => threadPosts(slack, job.rootTs)[0]?.at ?? 0));
    expect(postedAt - restartedAt).toBeLessThan(LEASE_MS + 3_000);
    expect(threadPosts(slack, b.rootTs)[0]?.args.text).toContain('pull/2');
    expect(threadPosts(slack, c.rootTs)[0]?.args.text).toContain('failed');

    await sleep(1_000);
    for (const job of jobs) expect(threadPosts(slack, job.rootTs), job.jobId).toHaveLength(1);
    expect(outcomesPosted(second)).toBe(2);
  });

  it('when one of two instances is killed, the survivor takes over its jobs within the lease and posts each once', async () => {
    const doomed = await spawnApp();
    const survivor = await spawnApp();
    const jobs: StartedJob[] = [];
    for (let i = 0; i < 6; i++) {
      jobs.push(await startJobVia(i % 2 === 0 ? doomed.url : survivor.url, slack, `Two instances, one dies ${i}`));
    }
    // Each instance is polling the jobs it started (the one that creates a job takes its lease).
    await eventually(() => jobs.every((job) => getsFor(job.jobId).length > 0), 5_000, 'polling');

    await doomed.kill('SIGKILL');
    const killedAt = Date.now();
    for (const job of jobs) sim.endJob(job.jobId, { status: 'completed', prLink: null });

    await eventually(
      () => jobs.every((job) => threadPosts(slack, job.rootTs).length >= 1),
      LEASE_MS + 6_000,
      'every outcome from the survivor',
    );
    const lastPost = Math.max(...jobs.map((job) => threadPosts(slack, job.rootTs)[0]?.at ?? 0));
    // Lease lapse, plus the survivor's re-check at half a lease and one poll.
    expect(lastPost - killedAt).toBeLessThan(LEASE_MS + LEASE_MS / 2 + 1_000);

    await sleep(1_000);
    for (const job of jobs) expect(threadPosts(slack, job.rootTs), job.jobId).toHaveLength(1);
    expect(outcomesPosted(survivor)).toBe(6);
  });

  it('with two live instances on one Redis, each outcome is posted exactly once', async () => {
    const one = await spawnApp();
    const two = await spawnApp();
    const jobs: StartedJob[] = [];
    for (let i = 0; i < 8; i++) jobs.push(await startJobVia(i % 2 ? one.url : two.url, slack, `Both alive ${i}`));
    await sleep(LEASE_MS); // long enough for both to discover every job and contend for the leases
    for (const job of jobs) sim.endJob(job.jobId, { status: 'completed', prLink: null });

    await eventually(() => jobs.every((job) => threadPosts(slack, job.rootTs).length >= 1), 8_000, 'every outcome');
    await sleep(1_000);
    for (const job of jobs) expect(threadPosts(slack, job.rootTs), job.jobId).toHaveLength(1);
    expect(outcomesPosted(one) + outcomesPosted(two)).toBe(8);
  });

  it('killed between Slack’s answer and the record of it, the next instance finds the post in the thread and never repeats it', async () => {
    const first = await spawnApp();
    const { jobId, rootTs } = await startJobVia(first.url, slack, 'Die right after posting');
    // Slack stores the outcome; the instance dies before its answer arrives, so nothing is recorded.
    slack.fail('chat.postMessage', { storeThen: () => void first.kill('SIGKILL') }, 1, (a) => a.thread_ts === rootTs);
    sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/8' });
    await eventually(() => first.child.signalCode === 'SIGKILL', 5_000, 'the kill');

    const second = await spawnApp();
    await eventually(
      () =>
        slack
          .callsTo('chat.update')
          .some((c) => c.args.ts === rootTs && JSON.stringify(c.args.blocks).includes('Pull request ready')),
      LEASE_MS + POSTING_CLAIM_MS + 3_000,
      'the round ended by the next instance',
    );
    await sleep(800);
    expect(slack.messages.filter((m) => m.thread_ts === rootTs)).toHaveLength(1);
    expect(slack.callsTo('conversations.replies').length).toBeGreaterThan(0);
    await eventually(() => second.output().includes('"found":true'), 2_000, 'the post found in the thread');
  });

  it('two bots for two projects on one Redis, default namespace: each posts its own outcome once, never polls the other’s jobs', async () => {
    const a = await spawnApp({ MINTLIFY_PROJECT_ID: 'proj_a' });
    const b = await spawnApp({ MINTLIFY_PROJECT_ID: 'proj_b' });
    const jobA = await startJobVia(a.url, slack, 'A job for project a');
    const jobB = await startJobVia(b.url, slack, 'A job for project b');
    await sleep(LEASE_MS); // both discover every active job they can see, and contend for leases

    // A reply in A's thread reaches both bots (both are in the channel): only A forwards it.
    await postJson(b.url, threadReply(jobA.rootTs, { text: 'For bot A only' }));
    await postJson(a.url, threadReply(jobA.rootTs, { text: 'For bot A only' }));
    await eventually(() => sim.requests.some((r) => r.path === `/v2/agent/proj_a/job/${jobA.jobId}/message`), 5_000);

    // B restarts mid-job; both jobs end.
    await b.kill('SIGTERM');
    const b2 = await spawnApp({ MINTLIFY_PROJECT_ID: 'proj_b' });
    sim.endJob(jobA.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/10' });
    sim.endJob(jobB.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/20' });
    await eventually(
      () => threadPosts(slack, jobA.rootTs).length === 1 && threadPosts(slack, jobB.rootTs).length === 1,
      LEASE_MS + 6_000,
      'each outcome',
    );
    await sleep(800);
    expect(threadPosts(slack, jobA.rootTs)).toHaveLength(1);
    expect(threadPosts(slack, jobB.rootTs)).toHaveLength(1);
    expect(sim.requests.filter((r) => r.path.endsWith('/message'))).toHaveLength(1);
    // Nobody asked project b about a's job, or the other way round.
    expect(sim.requests.some((r) => r.path.includes(`proj_b/job/${jobA.jobId}`))).toBe(false);
    expect(sim.requests.some((r) => r.path.includes(`proj_a/job/${jobB.jobId}`))).toBe(false);
    for (const out of [b.output(), b2.output()]) expect(out).not.toContain('no longer exists');
    expect(outcomesPosted(a)).toBe(1);
    expect(outcomesPosted(b2)).toBe(1);
  });

  it('a gracefully stopped instance’s jobs are picked up by its peer within the longest poll interval', async () => {
    const leaving = await spawnApp();
    const staying = await spawnApp();
    const { jobId, rootTs } = await startJobVia(leaving.url, slack, 'Hand over on stop');
    await eventually(() => getsFor(jobId).length > 0, 5_000, 'polling');
    expect(await leaving.kill('SIGTERM')).toBe(0);
    const stoppedAt = Date.now();
    sim.endJob(jobId, { status: 'completed', prLink: null });
    await eventually(() => threadPosts(slack, rootTs).length === 1, 5_000, 'the outcome from the peer');
    // The stopped instance released its lease, so the peer (checking once per POLL_MAX_INTERVAL_MS) did not wait
    // for it to lapse. Compared with the lease, not the interval, so a busy machine cannot make this flaky.
    expect((threadPosts(slack, rootTs)[0]?.at ?? 0) - stoppedAt).toBeLessThan(LEASE_MS);
    await eventually(() => outcomesPosted(staying) === 1, 2_000, 'the peer’s log line');
  });
});
