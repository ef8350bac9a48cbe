import { beforeEach, describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.js';
import { type CommandResult, jobIdOfUpdate, type StartedJob } from '../support/steps.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';
import { FAST_POLL, LONG_JOB_MS, redisServerAvailable, sleep, useRedisServer } from './support.js';

/**
 * The app's Redis goes away while jobs are tracked. Realistic outage: a maintenance restart
 * (`SHUTDOWN SAVE`, a few seconds down, started again from its dump on the same port), so the
 * bindings survive while every connection is dropped and refused in between. Also a storm of
 * dropped connections (`CLIENT KILL TYPE normal`) while outcomes are being posted.
 */
describe.skipIf(!redisServerAvailable)('Redis dropped or restarted while jobs are tracked', () => {
  const redisServer = useRedisServer();
  const h = useHarness({ simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL });
  beforeEach(async () => {
    await h.boot({ redisUrl: redisServer().url });
  });

  it('answers /agent during a restart with a private error echoing the prompt, reconnects, and posts every outcome once', async () => {
    const { app: running, slack, sim } = h;
    const redis = redisServer();
    const jobs: StartedJob[] = [];
    for (let i = 0; i < 4; i++) jobs.push(await h.startJob(`Before the outage ${i}`));
    const [a, b, c, d] = jobs as [StartedJob, StartedJob, StartedJob, StartedJob];

    // One outcome lands before the outage: it must not be posted again after it.
    sim.endJob(a.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/100' });
    await eventually(() => h.threadPosts(a.rootTs).length === 1, 5_000, 'outcome before the outage');

    await redis.shutdownSave();
    await eventually(
      () =>
        running.app.deps.store.jobs.active('probe').then(
          () => false,
          () => true,
        ),
      5_000,
      'the app to see the store down',
    );

    // Jobs end while the store is down.
    sim.endJob(b.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/101' });
    sim.endJob(c.jobId, { status: 'failed' });

    const during = await h.command('/agent Written while Redis is down', { responseId: 'outage' });
    expect(during.status).toBe(200);
    expect(during.ms).toBeLessThan(1_500);
    const [reply] = await eventually(
      () => slack.callsTo('response_url:outage').length && slack.callsTo('response_url:outage'),
      5_000,
      'private reply during the outage',
    );
    expect(reply?.args.response_type).toBe('ephemeral');
    expect(reply?.args.text).toContain('storage is unavailable');
    expect(reply?.args.text).toContain('>Written while Redis is down');
    expect(h.creates()).toHaveLength(4); // nothing started for it
    expect(JSON.stringify(slack.callsTo('chat.postMessage'))).not.toContain('Written while Redis is down');

    await sleep(1_000); // down for a while: past a lease and several poll rounds
    await redis.restart();
    await eventually(() => running.logs().includes('store.redis_ready'), 10_000, 'reconnect');

    await eventually(
      () => h.threadPosts(b.rootTs).length === 1 && h.threadPosts(c.rootTs).length === 1,
      10_000,
      'outcomes that ended during the outage',
    );
    expect(h.threadPosts(b.rootTs)[0]?.args.text).toContain('pull/101');
    expect(h.threadPosts(c.rootTs)[0]?.args.text).toContain('failed');

    // A job still running across the outage is tracked afterwards too.
    sim.endJob(d.jobId, { status: 'completed', prLink: null });
    await eventually(() => h.threadPosts(d.rootTs).length === 1, 5_000, 'outcome after the outage');

    // And the store takes new work again.
    await h.startJob('After the outage');
    expect(h.creates()).toHaveLength(5);

    await sleep(800); // further polls must not post again
    for (const job of jobs) expect(h.threadPosts(job.rootTs), job.jobId).toHaveLength(1);
  });

  it('survives repeated dropped connections while outcomes are posted: each exactly once, every /agent answered', async () => {
    const { app: running, slack, sim } = h;
    const redis = redisServer();
    const jobs: StartedJob[] = [];
    for (let i = 0; i < 6; i++) jobs.push(await h.startJob(`Under a connection storm ${i}`));
    for (const job of jobs) sim.endJob(job.jobId, { status: 'completed', prLink: null });

    // Drop every app connection every 40 ms for ~1.2 s while the poller posts and users run /agent.
    const commands: Promise<CommandResult>[] = [];
    for (let round = 0; round < 30; round++) {
      await redis.command(['CLIENT', 'KILL', 'TYPE', 'normal']);
      if (round % 10 === 5) commands.push(h.command(`/agent Storm command ${round}`, { responseId: `storm${round}` }));
      await sleep(40);
    }
    const answered = await Promise.all(commands);
    expect(running.logs()).toContain('store.redis_ready'); // connections really were dropped and re-made
    for (const { status, ms } of answered) {
      expect(status).toBe(200);
      expect(ms).toBeLessThan(1_500);
    }

    await eventually(
      () => jobs.every((job) => h.threadPosts(job.rootTs).length >= 1),
      10_000,
      'every outcome after the storm',
    );
    await sleep(800);
    for (const job of jobs) expect(h.threadPosts(job.rootTs), job.jobId).toHaveLength(1);

    // Every storm command either started a job bound to its thread or told the user privately.
    for (const round of [5, 15, 25]) {
      const prompt = `Storm command ${round}`;
      const bound = () =>
        slack.callsTo('chat.update').some((c) => jobIdOfUpdate(c) && JSON.stringify(c.args.blocks).includes(prompt));
      const replies = () => slack.callsTo(`response_url:storm${round}`);
      await eventually(() => bound() || replies().length > 0, 5_000, `an answer to "${prompt}"`);
      for (const reply of replies()) expect(reply.args.text).toContain(`>${prompt}`);
    }
  });

  /**
   * The store connection drops at the worst moments of posting an outcome, found by the storm above:
   * Redis applied a command but its reply was lost, or Slack took the post and then recording it failed.
   * The poller must neither sit on its own posting claim (30 s) nor post again.
   */
  describe('connection dropped in the middle of posting an outcome', () => {
    const rootEnded = (rootTs: string) =>
      h.slack
        .callsTo('chat.update')
        .some((c) => c.args.ts === rootTs && JSON.stringify(c.args.blocks).includes('Pull request ready'));

    it('after Slack accepted the post but before it was recorded: marked ended promptly, never posted twice', async () => {
      const { app: running, sim } = h;
      const redis = redisServer();
      const { jobId, rootTs } = await h.startJob('Drop after the post');
      const { jobs } = running.app.deps.store;
      const endRound = jobs.endRound.bind(jobs);
      let dropped = 0;
      jobs.endRound = async (...args) => {
        if (args[0].jobId === jobId && dropped++ === 0) {
          // Slack has the post; the connection drops before the write that records it reaches Redis.
          await redis.command(['CLIENT', 'KILL', 'TYPE', 'normal']);
          throw new Error('Socket closed unexpectedly');
        }
        return endRound(...args);
      };
      sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/55' });

      await eventually(() => rootEnded(rootTs), 6_000, 'the root message marked ended');
      await sleep(800);
      expect(dropped).toBeGreaterThan(0);
      expect(h.threadPosts(rootTs)).toHaveLength(1);
    });

    it('after Redis granted the posting claim but its reply was lost: the outcome is still posted promptly, once', async () => {
      const { app: running, sim } = h;
      const redis = redisServer();
      const { jobId, rootTs } = await h.startJob('Drop the claim reply');
      const claims = running.app.deps.store.claims;
      let lost = 0;
      // Whichever call takes the posting claim (claim or renew): Redis applies it, then the reply is lost.
      for (const name of ['claim', 'renew'] as const) {
        const take = claims[name].bind(claims);
        claims[name] = async (key, owner, ttlMs) => {
          const granted = await take(key, owner, ttlMs);
          if (key.startsWith(`posting:${TEST_PROJECT_ID}:${jobId}`) && lost++ === 0) {
            await redis.command(['CLIENT', 'KILL', 'TYPE', 'normal']);
            throw new Error('Socket closed unexpectedly');
          }
          return granted;
        };
      }
      sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/56' });

      await eventually(() => h.threadPosts(rootTs).length === 1, 6_000, 'the outcome');
      await eventually(() => rootEnded(rootTs), 3_000, 'the root message marked ended');
      await sleep(800);
      expect(lost).toBeGreaterThan(0);
      expect(h.threadPosts(rootTs)).toHaveLength(1);
    });
  });
});
