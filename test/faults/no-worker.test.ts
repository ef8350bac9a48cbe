import { describe, expect, it } from 'vitest';
import { errors } from '../../src/agent/messages.js';
import { TASK_MAX_AGE_MS } from '../../src/task.js';
import { useHarness } from '../support/harness.js';
import { redisStore } from '../support/redis.js';
import { metricsUrlOf } from '../support/test-app.js';
import { eventually, sleep } from '../support/wait.js';

// Issue 30, defect 5: with ROLE=web and no worker running, /agent was acknowledged and then nothing; when a worker
// started hours later, the stale commands ran with no age limit. Now the person hears within 10 s that their
// request is queued with no worker to take it, /metrics shows consumers per lane, and a command older than
// TASK_MAX_AGE_MS when a worker finally takes it is answered as expired, not run.

const text = (call: { args: Record<string, unknown> }) => JSON.stringify(call.args);
const consumers = async (url: string, lane: string) => {
  const scrape = await (await fetch(`${url}/metrics`)).text();
  return Number(new RegExp(`^mintlify_slack_queue_consumers\\{lane="${lane}"\\} (\\d+)$`, 'm').exec(scrape)?.[1]);
};

describe('ROLE=web with no worker running (Redis)', () => {
  const h = useHarness({ store: redisStore });

  it('/agent is acknowledged, then within 10 s the person hears it is queued and no worker runs, text echoed', async () => {
    const web = await h.boot({ env: { ROLE: 'web' } });
    const { ack, responseId } = await h.command('/agent Document the retry policy');
    expect(ack).toBeUndefined();
    const answer = await h.answer(responseId, 0, 10_000);
    expect(text(answer)).toContain(JSON.stringify(errors.noWorker('x', 10).text).slice(1, 40));
    expect(text(answer)).toContain('Document the retry policy');
    expect(h.creates()).toHaveLength(0);
    expect(await consumers(metricsUrlOf(web.app), 'agent')).toBe(0);
    expect(web.logs()).toContain('"event":"queue.no_worker"');
  });

  it('the real entry point as ROLE=web alone: the person hears within 10 s of the ack; /metrics shows no consumer', async () => {
    const web = await h.spawn({ ROLE: 'web' });
    const { responseId } = await h.command('/agent Document the webhooks', { app: web });
    const acked = Date.now();
    const answer = await h.answer(responseId, 0, 10_000);
    expect(Date.now() - acked).toBeLessThan(10_000);
    expect(text(answer)).toContain('no worker is running');
    expect(text(answer)).toContain('Document the webhooks');
    expect(await consumers(web.metricsUrl, 'agent')).toBe(0);
    expect(await consumers(web.metricsUrl, 'polls')).toBe(0);
  }, 60_000); // a real process starts in 8–15 s on a loaded 2-core machine

  it('a command queued in the seconds after the last worker left (its lane still remembered as served) is told within 10 s too', async () => {
    const web = await h.boot({ env: { ROLE: 'web' } });
    const worker = await h.boot({ env: { ROLE: 'worker' } });
    await h.startJob('Document the first thing', { app: web }); // the web finds the lane served and remembers it
    await worker.stop();
    const { responseId } = await h.command('/agent Document the retry policy', { app: web });
    const answer = await h.answer(responseId, 0, 10_000);
    expect(text(answer)).toContain('no worker is running');
    expect(text(answer)).toContain('Document the retry policy');
    expect(web.logs()).toContain('"event":"queue.no_worker"');
  });

  it('of the commands queued in those seconds, one the leaving worker ran is not told; one still waiting is, within 10 s', async () => {
    const web = await h.boot({ env: { ROLE: 'web' } });
    const worker = await h.boot({ env: { ROLE: 'worker' } });
    await h.startJob('Document the first thing', { app: web }); // the web finds the lane served and remembers it
    const ran = await h.command('/agent Document the taken thing', { app: web });
    await eventually(
      () => JSON.stringify(h.creates()).includes('Document the taken thing'),
      8_000,
      'the worker ran it',
    );
    await worker.stop();
    const { responseId } = await h.command('/agent Document the retry policy', { app: web });
    const answer = await h.answer(responseId, 0, 10_000);
    expect(text(answer)).toContain('no worker is running');
    expect(text(answer)).toContain('Document the retry policy');
    await sleep(500); // both would be told by the same look
    expect(h.answers(ran.responseId).map(text).join('\n')).not.toContain('no worker is running');
  });

  it('a worker starting later runs a fresh command and answers one older than the bound as expired', async () => {
    let webClockMs = -(TASK_MAX_AGE_MS + 60_000); // the first command is queued "11 minutes ago"
    const web = await h.boot({ env: { ROLE: 'web' }, now: () => Date.now() + webClockMs });
    const stale = await h.command('/agent Document the stale thing', { app: web });
    await h.answer(stale.responseId, 0, 10_000); // queued, no worker
    webClockMs = 0;

    await h.boot({ env: { ROLE: 'worker' } });
    expect(await consumers(metricsUrlOf(web.app), 'agent')).toBeGreaterThan(0);
    const expired = await h.answer(stale.responseId, 1, 10_000);
    expect(text(expired)).toContain(JSON.stringify(errors.expired('x', 11).text).slice(1, 30));
    expect(text(expired)).toContain('Document the stale thing');

    const job = await h.startJob('Document the fresh thing', { app: web });
    expect(h.creates()).toHaveLength(1);
    expect(JSON.stringify(h.creates()[0]?.body)).toContain('Document the fresh thing');
    expect(h.sim.getJob(job.jobId)).toBeDefined();
    // The stale command never reached the service.
    expect(JSON.stringify(h.creates())).not.toContain('Document the stale thing');
  });
});
