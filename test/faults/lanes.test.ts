import { describe, expect, it } from 'vitest';
import { threadReply } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { eventually } from '../support/test-app.js';
import { LONG_JOB_MS, sleep } from './support.js';

const REPORTS = 8;

/** Slow analytics never hold up the agent (issue 20, defect 6): agent work has its own lane. */
describe.each(storeKinds)('lanes: slow reports vs the agent ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: LONG_JOB_MS }, boot: true });

  it('with analytics slowed to 5 s and 8 /visitors waiting, /agent’s root and a follow-up’s 👀 come within 1 s', async () => {
    const { jobId, rootTs } = await h.startJob('Started before analytics slowed');
    h.sim.injectFault({ kind: 'slow', delayMs: 5_000, count: Infinity, match: { path: /\/visitors$/ } });
    for (let i = 0; i < REPORTS; i++) await h.command('/visitors 7d', { responseId: `report${i}` });
    await eventually(() => h.sim.requests.some((r) => r.path.endsWith('/visitors')), 3_000, 'reports under way');
    await sleep(100);

    const started = performance.now();
    await h.startJob('Document the retry policy');
    expect(performance.now() - started).toBeLessThan(1_000);

    const replied = performance.now();
    await h.deliver(threadReply(rootTs, { text: 'Also fix the title' }));
    await eventually(
      () => h.slack.callsTo('reactions.add').some((c) => c.args.timestamp !== rootTs && c.args.name === 'eyes'),
      1_000,
      'the 👀 on the follow-up',
    );
    expect(performance.now() - replied).toBeLessThan(1_000);
    expect(h.sim.getJob(jobId)).toBeDefined();
    expect(h.answers('report0')).toEqual([]); // the reports are still waiting on analytics
  });
});
