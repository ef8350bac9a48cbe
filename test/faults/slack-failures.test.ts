import { describe, expect, it } from 'vitest';
import type { SlackFault } from '../fakes/fake-slack-api.js';
import { useHarness } from '../support/harness.js';
import { redisAvailable, redisStore } from '../support/redis.js';
import { jobIdOfUpdate } from '../support/steps.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';
import { FAST_POLL, LONG_JOB_MS, sleep, TAKEOVER_MS } from './support.js';

describe('Slack refusing or throttling the app', () => {
  const h = useHarness({ simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL });

  describe.skipIf(!redisAvailable)(
    'outcome post rate-limited (429 + Retry-After) with a second replica running',
    () => {
      it('waits out Retry-After, then delivers the outcome once, whichever replica takes the delivery', async () => {
        const first = await h.boot({ store: redisStore });
        await h.boot({ store: redisStore }); // a replica working the same lanes while the delivery waits
        const { jobId, rootTs } = await h.startJob('Throttled outcome', { app: first });

        const retryAfterSec = 3; // longer than TAKEOVER_MS: either replica may run the delivery's next try
        expect(retryAfterSec * 1000).toBeGreaterThan(TAKEOVER_MS);
        h.slack.fail('chat.postMessage', { status: 429, retryAfterSec });
        h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/429' });

        const [refused, delivered] = await eventually(
          () => h.threadPosts(rootTs).length >= 2 && h.threadPosts(rootTs),
          retryAfterSec * 1000 + 5_000,
          'the outcome after the wait',
        );
        expect(delivered?.args.text).toContain('pull/429');
        expect((delivered?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(retryAfterSec * 1000 - 50);

        await sleep(1_000);
        expect(h.threadPosts(rootTs)).toHaveLength(2); // the refused attempt and one delivery
        const posted = h.apps.map((app) => app.logs().match(/"event":"poller\.outcome_posted"/g)?.length ?? 0);
        expect((posted[0] ?? 0) + (posted[1] ?? 0)).toBe(1);
      });
    },
  );

  it('a root post throttled once is retried after Retry-After: one job, one root message, no error for the user', async () => {
    await h.boot();
    h.slack.fail('chat.postMessage', { status: 429, retryAfterSec: 1 });
    const { status, ms } = await h.command('/agent Throttled root', { responseId: 'throttled' });
    expect(status).toBe(200);
    expect(ms).toBeLessThan(1_000); // the ack never waits on Slack's Web API
    await eventually(
      () =>
        h.slack
          .callsTo('chat.update')
          .some((c) => jobIdOfUpdate(c) && JSON.stringify(c.args.blocks).includes('Throttled')),
      6_000,
      'the job bound to its root message',
    );
    const roots = h.slack.callsTo('chat.postMessage').filter((c) => !c.args.thread_ts);
    expect(roots).toHaveLength(2); // the throttled attempt and the retry
    expect((roots[1]?.at ?? 0) - (roots[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(h.sim.counts().creates).toBe(1);
    await sleep(300);
    expect(h.slack.callsTo('response_url:throttled')).toHaveLength(0);
    expect(h.slack.callsTo('chat.delete')).toHaveLength(0);
  });

  const rootFaults: [string, SlackFault, number, string][] = [
    ['not_in_channel', { error: 'not_in_channel' }, 1, '/invite'],
    ['channel_not_found', { error: 'channel_not_found' }, 1, '/invite'],
    ['a 503 (never retried: Slack may have stored it)', { status: 503 }, 1, 'Slack did not accept my message'],
    ['an unexpected error', { error: 'fatal_error' }, 1, 'Slack did not accept my message'],
  ];
  it.each(rootFaults)(
    'when the root post fails with %s, tells the user privately and creates no job',
    async (_, fault, count, words) => {
      const app = await h.boot();
      h.slack.fail('chat.postMessage', fault, count);
      const { status } = await h.command('/agent Refused root <b>', { responseId: 'refused' });
      expect(status).toBe(200);
      const [reply] = await eventually(
        () => h.slack.callsTo('response_url:refused').length && h.slack.callsTo('response_url:refused'),
        8_000,
        'private reply',
      );
      expect(reply?.args.response_type).toBe('ephemeral');
      expect(reply?.args.text).toContain(words);
      expect(reply?.args.text).toContain('>Refused root &lt;b&gt;');
      await sleep(300);
      expect(h.sim.requests).toHaveLength(0);
      expect(h.slack.callsTo('chat.postMessage')).toHaveLength(count);
      expect(h.slack.callsTo('chat.update')).toHaveLength(0);
      expect(await app.app.deps.store.jobs.active(TEST_PROJECT_ID)).toEqual([]);
      expect(h.slack.callsTo('response_url:refused')).toHaveLength(1);
    },
  );
});
