import { describe, expect, it } from 'vitest';
import { homeOpened } from '../fixtures/conversation.js';
import { USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { eventually } from '../support/test-app.js';
import { FAST_POLL, LONG_JOB_MS } from './support.js';

const PR = 'https://github.com/acme/docs/pull/429';
const DONE = 'Pull request ready';

/** Slack's rate tiers (issue 20, defect 5): a 429 delays a final state, it never loses it. */
describe.each(storeKinds)('Slack rate tiers ($kind store)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL });

  const rootUpdates = (rootTs: string) => h.slack.callsTo('chat.update').filter((c) => c.args.ts === rootTs);
  const saysDone = (args: Record<string, unknown>) => JSON.stringify(args.blocks ?? '').includes(DONE);
  const homes = () => h.slack.callsTo('views.publish').filter((c) => c.args.user_id === USER_ID);

  it('one 429 on the final root update: the root still ends "done", and App Home follows', async () => {
    await h.boot();
    const { jobId, rootTs } = await h.startJob('Throttled root');
    await h.deliver(homeOpened(USER_ID, 'home'));
    await eventually(() => homes().length > 0, 3_000, 'Home published');
    h.slack.fail('chat.update', { status: 429, retryAfterSec: 1 }, 1, (a) => a.ts === rootTs && saysDone(a));
    h.slack.fail('views.publish', { status: 429, retryAfterSec: 1 }, 1, (a) => JSON.stringify(a.view).includes(DONE));
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });

    await eventually(() => rootUpdates(rootTs).filter((c) => saysDone(c.args)).length === 2, 6_000, 'root retried');
    const stored = h.slack.messages.find((m) => m.ts === rootTs);
    expect(JSON.stringify(stored?.blocks)).toContain(DONE);
    await eventually(() => homes().filter((c) => JSON.stringify(c.args.view).includes(DONE)).length === 2, 6_000);
    const [refused, landed] = rootUpdates(rootTs).filter((c) => saysDone(c.args));
    expect((landed?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });
});
