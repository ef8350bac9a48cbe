import { describe, expect, it } from 'vitest';
import { CHANNEL_ID, threadReply, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { eventually, metricsUrlOf } from '../support/test-app.js';
import { FAST_POLL, LONG_JOB_MS, redisServerAvailable, sleep, useRedisServer } from './support.js';

// Issue 20, defect 3: Redis lost its data mid-job (a restart without persistence, a failover to an empty replica,
// FLUSHDB): polling stopped, the root said "Working" for ever, a reply in the thread was ignored and nothing was
// logged. Now the loss is logged and counted, and a reply in the thread takes the job up again from its root's
// Slack metadata.

const PR = 'https://github.com/acme/docs/pull/31';

describe.skipIf(!redisServerAvailable)('Redis loses its data while a job runs', () => {
  const redis = useRedisServer();
  const h = useHarness({ simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL });

  const outcomes = (rootTs: string) =>
    h.slack.messages.filter((m) => m.thread_ts === rootTs && JSON.stringify(m.metadata ?? '').includes('outcome'));

  const metadataReads = () =>
    h.slack.callsTo('conversations.replies').filter((c) => String(c.args.include_all_metadata) === 'true');

  it('a job started by a mention (its status is a reply in a person’s thread) is taken up again too', async () => {
    await h.boot({ redisUrl: redis().url });
    const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify document the webhooks');
    await h.deliver(mention.events);
    const { jobId } = await h.jobOf(CHANNEL_ID, mention.ts);
    // Before any loss, a reply in a thread that is no job's costs no Slack lookup.
    const other = h.say(USER_ID, CHANNEL_ID, 'Lunch?');
    await h.deliver(h.say(USER_ID, CHANNEL_ID, 'Tacos', { threadTs: other.ts }).events);
    await sleep(300);
    expect(metadataReads()).toHaveLength(0);

    await redis().command(['FLUSHDB']);
    await h.deliver(h.say(USER_ID, CHANNEL_ID, 'Include the retry header', { threadTs: mention.ts }).events);
    const followUp = await eventually(() => h.followUps()[0], 8_000, 'the follow-up sent');
    expect(followUp.path).toContain(jobId);
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => outcomes(mention.ts).length === 1, 8_000, 'the outcome');
    await sleep(800);
    expect(outcomes(mention.ts)).toHaveLength(1);
    expect(h.creates()).toHaveLength(1); // never a second job
  });

  it('FLUSHDB, then a reply in the thread: detected and counted, the job taken up again, its outcome posted once', async () => {
    const app = await h.boot({ redisUrl: redis().url });
    const { jobId, rootTs } = await h.startJob('Document the retry policy');
    await redis().command(['FLUSHDB']);

    await h.deliver(threadReply(rootTs, { text: 'Also mention the backoff' }));
    const followUp = await eventually(() => h.followUps()[0], 8_000, 'the follow-up sent');
    expect(followUp.path).toContain(jobId);
    expect(JSON.stringify(followUp.body)).toContain('Also mention the backoff');
    await eventually(
      () => h.slack.callsTo('reactions.add').some((c) => c.args.name === 'white_check_mark'),
      5_000,
      'the follow-up accepted',
    );

    const lost = app
      .logs()
      .split('\n')
      .filter((line) => line.includes('"event":"store.data_lost"'));
    expect(lost).toHaveLength(1);
    expect(JSON.parse(lost[0] ?? '{}')).toMatchObject({
      level: 'error',
      message: expect.stringContaining('noeviction'),
    });
    const metrics = await (await fetch(`${metricsUrlOf(app.app)}/metrics`)).text();
    expect(metrics).toContain('mintlify_slack_store_data_lost_total{found="marker"} 1');

    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => outcomes(rootTs).length === 1, 8_000, 'the outcome');
    expect(JSON.stringify(outcomes(rootTs)[0])).toContain(PR);
    // The root is the job's again: its original prompt, its final state.
    await eventually(
      () => {
        const last = h.slack
          .callsTo('chat.update')
          .filter((c) => c.args.ts === rootTs)
          .at(-1);
        const blocks = JSON.stringify(last?.args.blocks ?? '');
        return blocks.includes('Pull request ready') && blocks.includes('Document the retry policy');
      },
      5_000,
      'the root’s final state',
    );
    await sleep(800); // further polls must not post again
    expect(outcomes(rootTs)).toHaveLength(1);
  });
});
