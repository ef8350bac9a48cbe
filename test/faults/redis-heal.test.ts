import { describe, expect, it } from 'vitest';
import { USER_ID } from '../fixtures/slack.js';
import type { AppProcess } from '../support/app-process.js';
import { useHarness } from '../support/harness.js';
import { splitRedis } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually } from '../support/test-app.js';
import { FAST_POLL, LONG_JOB_MS, redisServerAvailable, useRedisServer } from './support.js';

// Issue 30, defect 4: Redis restarted empty under web + workers: delayed polls and digest schedulers were gone and
// never made again; only a reply in a job's thread took the job up again, and a digest never came again. Now the
// instance that learns of the loss (its marker gone) heals from the witnesses, one instance for all: Slack (the
// metadata on the app's roots and digests in the channels it is in) and the service (each job's status).

const PR = 'https://github.com/acme/docs/pull/77';
/** The loss is noticed within the marker's check (5 s), then one instance reads Slack back. */
const HEALED_WITHIN_MS = 20_000;

const logged = (processes: { output(): string }[], event: string) =>
  processes.map((p) => p.output().match(new RegExp(`"event":"${event}"`, 'g'))?.length ?? 0).reduce((a, b) => a + b);

describe.skipIf(!redisServerAvailable)(
  'Redis flushed under 1 web + 2 workers, nobody replying',
  { timeout: 90_000 },
  () => {
    const redis = useRedisServer();
    const h = useHarness({ simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL });

    /** Both forms of root carry the job in their metadata: the status line, and the plan card (the default). */
    const roots = [
      { root: 'status line', env: { SLACK_PLAN_CARD: 'false' }, finalWords: 'Pull request ready' },
      { root: 'plan card', env: { SLACK_PLAN_CARD: '' }, finalWords: 'Pull request opened' },
    ];

    it.each(roots)(
      'real processes: the job in flight still posts its PR once in its thread, with no reply in it ($root)',
      async ({ env: rootEnv, finalWords }) => {
        const env = { REDIS_URL: redis().url, ...rootEnv };
        const [web, ...workers] = (await Promise.all([
          h.spawn({ ...env, ROLE: 'web' }),
          h.spawn({ ...env, ROLE: 'worker' }),
          h.spawn({ ...env, ROLE: 'worker' }),
        ])) as [AppProcess, AppProcess, AppProcess];
        const { jobId, rootTs } = await h.startJob('Document the retry policy', { app: web });
        const polls = () => h.sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/${jobId}`)).length;
        await eventually(() => polls() > 0, 10_000, 'the job polled');

        await redis().command(['FLUSHDB']);
        await eventually(() => logged([web, ...workers], 'store.data_lost') > 0, HEALED_WITHIN_MS, 'the loss noticed');
        await settle(1_000); // a poll in flight at the flush has found its record gone by now
        h.sim.endJob(jobId, { status: 'completed', prLink: PR });

        const prPosts = () => h.threadPosts(rootTs).filter((c) => String(c.args.text).includes(PR));
        await eventually(() => prPosts().length === 1, HEALED_WITHIN_MS, 'the PR in its thread');
        expect(logged(workers, 'store.job_healed')).toBe(1);
        await eventually(() => h.lastRootUpdate(rootTs).includes(finalWords), 10_000, 'the root’s final state');
        await settle(1_500); // a second post would have come by now
        expect(prPosts()).toHaveLength(1);
        expect(h.threadPosts(rootTs)).toHaveLength(1);
        // Nobody replied in the thread, and the job was never started twice.
        expect(h.slack.messages.filter((m) => m.thread_ts === rootTs && m.user === USER_ID)).toHaveLength(0);
        expect(h.creates()).toHaveLength(1);
        // One worker healed; the other found it done (or never needed to look).
        expect(logged([web, ...workers], 'store.data_lost')).toBeGreaterThan(0);
        expect(logged([web, ...workers], 'store.healed')).toBe(1);
      },
    );

    describe('the digest', () => {
      // Occurrences come this often; once the test's clock passes the scheduled minute, each posts (as in
      // visitors-digest.test.ts).
      const EVERY_MS = 500;
      let time = 0;

      it('1 web + 2 workers: a subscribed channel still gets its digest after the flush, from its last digest', async () => {
        time = Date.parse('2026-11-23T08:59:30Z'); // a Monday, before the weekly digest's minute
        const app = await h.boot({
          store: splitRedis,
          redisUrl: redis().url,
          now: () => time,
          digestEveryMs: EVERY_MS,
        });
        h.slack.zones.set(USER_ID, 'UTC');
        await h.command('/visitors digest weekly', { app });
        expect(String((await h.answer()).args.text)).toContain('weekly on Monday at 09:00 UTC');
        time = Date.parse('2026-11-23T09:00:05Z');
        const digests = () =>
          h.slack.callsTo('chat.postMessage').filter((c) => String(c.args.text).includes('visitors digest'));
        await eventually(() => digests().length > 0, 10_000, 'the first digest');
        expect(JSON.stringify(digests()[0]?.args.metadata)).toContain('"created_by"');

        await redis().command(['FLUSHDB']);
        await eventually(() => app.logs().includes('"event":"store.data_lost"'), HEALED_WITHIN_MS, 'the loss noticed');
        await settle(EVERY_MS * 3); // an occurrence running at the flush has ended by now
        const afterFlush = digests().length;
        time = Date.parse('2026-11-30T09:00:05Z'); // the next week's (this week's went out before the flush)
        await eventually(() => digests().length > afterFlush, HEALED_WITHIN_MS, 'a digest after the flush');
        expect(JSON.stringify(digests().at(-1)?.args.blocks)).toContain('23–29 Nov 2026');
        expect(app.logs().match(/"event":"visitors\.digest_healed"/g)).toHaveLength(1);
        expect(app.logs().match(/"event":"store\.healed"/g)).toHaveLength(1);

        await h.command('/visitors digest', { app });
        expect(String((await h.answer()).args.text)).toContain('weekly on Monday at 09:00 UTC');
      });
    });
  },
);
