import { describe, expect, it } from 'vitest';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { dropNamespace, redisAvailable, redisStore } from '../support/redis.js';
import { eventually, TEST_API_KEY, TEST_PROJECT_ID } from '../support/test-app.js';

// Seen: after a loss, one job whose project key Mintlify now refuses stalled the whole heal: `store.heal_retry …
// (unauthorized)` every 1…60 s, never `store.healed`, and no digest scheduler made again (adoptDigests ran after
// every channel), so `/visitors digest` said "Next: …" and nothing posted. Now that job is skipped and logged, a
// failing channel or job is retried alone, and the schedulers come back first.

const KEY_B = 'mint_api_project_0123secret';
const GENERAL = 'C234GENERAL';

const events = (logs: string, event: string) =>
  logs
    .split('\n')
    .filter((line) => line.includes(`"event":"${event}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe.skipIf(!redisAvailable)('healing after a loss, item by item', { timeout: 60_000 }, () => {
  let time = 0;
  const h = useHarness({
    store: redisStore,
    simulator: { jobDurationMs: 600_000, projectKeys: { proj_api: KEY_B, [TEST_PROJECT_ID]: TEST_API_KEY } },
    env: { MINTLIFY_CHANNEL_PROJECTS: `${GENERAL}:proj_api`, MINTLIFY_API_KEYS: `proj_api:${KEY_B}` },
    start: { now: () => time, digestEveryMs: 500 },
  });

  /** A weekly digest in #docs (its last post carries the subscription) and a job of proj_api in #general. */
  async function digestAndJob() {
    time = Date.parse('2026-11-23T08:59:30Z'); // a Monday, before the weekly digest's minute
    const app = await h.boot();
    h.slack.zones.set(USER_ID, 'UTC');
    expect(await h.privately('/visitors digest weekly', { app })).toContain('weekly on Monday at 09:00 UTC');
    const post = h.slack.postAs('UBOT', CHANNEL_ID, 'Weekly visitors digest · 9–15 Nov 2026');
    const subscription = { cadence: 'weekly', from: '2026-11-09', project: TEST_PROJECT_ID, hour: 9, minute: 0 };
    const created = { weekday: 1, created_by: USER_ID, created_at: time - 86_400_000 };
    Object.assign(post, {
      metadata: { event_type: 'mintlify_visitors_digest', event_payload: { ...subscription, ...created } },
    });
    const job = await h.startJob('Document the v2 endpoints', { channel: GENERAL, app });
    return { app, job };
  }

  const digestsIn = (channel: string) =>
    h.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.args.channel === channel && String(c.args.text).includes('visitors digest'));

  it('skips a job whose project key is refused, heals the rest and the digest posts again', async () => {
    const { app, job } = await digestAndJob();
    h.sim.setKeys({ keys: { [TEST_API_KEY]: [TEST_PROJECT_ID] } }); // proj_api's key revoked in Mintlify
    await dropNamespace(h.namespace);

    await eventually(() => events(app.logs(), 'store.healed').length > 0, 20_000, 'healed');
    expect(events(app.logs(), 'store.heal_retry')).toEqual([]);
    expect(events(app.logs(), 'store.healed')).toHaveLength(1);
    const [unhealable, ...more] = events(app.logs(), 'store.job_unhealable');
    expect(more).toEqual([]);
    expect(unhealable).toMatchObject({
      level: 'error',
      job_id: job.jobId, // as every line about a job has it (docs/operating.md#logs): `grep job_id` finds it
      project: 'proj_api',
      outcome: 'unauthorized',
      hint: expect.stringContaining('MINTLIFY_API_KEYS'),
    });
    expect(unhealable).not.toHaveProperty('jobId');
    expect(events(app.logs(), 'store.healed')[0]).toMatchObject({ subscriptions: 1, schedulers: 1, failed: 0 });

    time = Date.parse('2026-11-23T09:00:05Z');
    await eventually(() => digestsIn(CHANNEL_ID).length > 0, 10_000, 'the digest after the loss');
    expect(JSON.stringify(digestsIn(CHANNEL_ID)[0]?.args.blocks)).toContain('16–22 Nov 2026');
  });

  it('retries only a channel Slack failed to read, the others healed at once', async () => {
    const { app, job } = await digestAndJob();
    h.slack.fail('conversations.history', { error: 'internal_error' }, 1, (args) => args.channel === GENERAL);
    await dropNamespace(h.namespace);

    await eventually(() => events(app.logs(), 'store.healed').length > 0, 20_000, 'healed');
    const [retry, ...retries] = events(app.logs(), 'store.heal_retry');
    expect(retries).toEqual([]);
    expect(retry).toMatchObject({ failed: 1 });
    // #docs was healed on the first try, before the retry, and not read again.
    const logs = app.logs();
    expect(logs.indexOf('"visitors.digest_healed"')).toBeGreaterThan(-1);
    expect(logs.indexOf('"visitors.digest_healed"')).toBeLessThan(logs.indexOf('"store.heal_retry"'));
    const reads = (channel: string) =>
      h.slack
        .callsTo('conversations.history')
        .filter((c) => c.args.channel === channel && String(c.args.include_all_metadata) === 'true');
    expect(reads(CHANNEL_ID)).toHaveLength(1);
    expect(reads(GENERAL)).toHaveLength(2);
    expect(events(logs, 'store.job_healed')).toMatchObject([{ jobId: job.jobId, project: 'proj_api' }]);
    expect(events(logs, 'store.healed')).toHaveLength(1);
    expect(events(logs, 'store.healed')[0]).toMatchObject({ jobs: 1, subscriptions: 1, failed: 0 });
  });
});
