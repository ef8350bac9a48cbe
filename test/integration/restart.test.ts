import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.js';
import { redisAvailable, redisStore } from '../support/redis.js';
import { jobIdOfUpdate, settle } from '../support/steps.js';
import { eventually } from '../support/test-app.js';

describe.skipIf(!redisAvailable)('restart (real process, SIGTERM, Redis store)', { timeout: 60_000 }, () => {
  const h = useHarness({ store: redisStore, simulator: { jobDurationMs: 60_000 } });

  it('resumes tracking after SIGTERM and posts the pull request exactly once', async () => {
    const running = await h.spawn();
    const { jobId: id, rootTs } = await h.startJob('Document pagination', { app: running });
    expect(h.sim.counts().creates).toBe(1);

    expect(await running.kill('SIGTERM')).toBe(0);
    expect(running.output()).toContain('app.stopped');
    h.sim.endJob(id, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/77' });

    await h.spawn();
    const posts = () => h.threadPosts(rootTs).filter((c) => String(c.args.text).includes('/pull/77'));
    await eventually(() => posts().length === 1, 10_000, 'outcome after restart');
    await settle(500);
    expect(posts()).toHaveLength(1);
  });

  it('on SIGTERM mid-create, finishes starting the acknowledged job (bound, tracked) before exiting', async () => {
    const running = await h.spawn();
    h.sim.injectFault({ kind: 'slow', delayMs: 800, count: 1, match: { method: 'POST' } });
    await h.command('/agent Slow to start', { app: running });
    await eventually(() => h.slack.callsTo('chat.postMessage').length === 1, 5_000, 'root message');
    expect(h.sim.counts().creates).toBe(0); // the create is still in flight

    expect(await running.kill('SIGTERM')).toBe(0);
    expect(h.sim.counts().creates).toBe(1);
    const update = h.slack.callsTo('chat.update').find((c) => jobIdOfUpdate(c));
    const id = (update && jobIdOfUpdate(update)) as string;
    expect(id).toBeDefined();

    h.sim.endJob(id, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/78' });
    await h.spawn();
    await eventually(
      () => h.slack.callsTo('chat.postMessage').filter((c) => String(c.args.text).includes('/pull/78')).length === 1,
      10_000,
      'outcome of the job started during shutdown',
    );
  });
});
