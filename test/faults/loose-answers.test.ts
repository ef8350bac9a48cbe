import { describe, expect, it } from 'vitest';
import { threadReply } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';
import { FAST_POLL, LONG_JOB_MS, sleep } from './support.js';

const PR = 'https://github.com/acme/docs/pull/88';

/**
 * Answers Mintlify's documents allow that the simulator never sent by default (issue 20, defects 1 and 2): a job
 * with no field but its id, a status the bot does not know, any 4xx, an answer that never matches the contract.
 */
describe.each(storeKinds)('answers the contract allows ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL, boot: true });

  const posted = (rootTs: string, words: string) =>
    h.threadPosts(rootTs).some((c) => String(c.args.text).includes(words));

  it('a create answered 201 with only the job id: the job is tracked as active and its PR posted', async () => {
    h.sim.injectFault({ kind: 'job', keep: ['id'], count: 1, match: { operation: 'create' } });
    const { jobId, rootTs } = await h.startJob('Document the webhooks');
    expect(h.lastRootUpdate(rootTs)).toContain('Working');
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => posted(rootTs, PR), 5_000, 'PR');
    await eventually(() => h.lastRootUpdate(rootTs).includes('Pull request ready'), 3_000, 'root ended');
  });

  it('polls answered without the job’s id (the document requires no field) are that job: its PR is posted', async () => {
    h.sim.injectFault({ kind: 'job', omit: ['id'], count: Number.POSITIVE_INFINITY, match: { operation: 'get' } });
    const { jobId, rootTs } = await h.startJob('Fix the links');
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => posted(rootTs, PR), 5_000, 'PR');
    await eventually(() => h.lastRootUpdate(rootTs).includes('Pull request ready'), 3_000, 'root ended');
  });

  it('a follow-up answered without the job’s id went through: its round is tracked and its PR posted', async () => {
    const { jobId, rootTs } = await h.startJob('Document the webhooks');
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => posted(rootTs, PR), 5_000, 'the first PR');
    h.sim.injectFault({ kind: 'job', omit: ['id'], count: 1, match: { operation: 'follow-up' } });
    await h.deliver(threadReply(rootTs, { text: 'Also fix the title' }));
    await eventually(() => h.sim.getJob(jobId)?.status === 'active', 5_000, 'the service took the follow-up');
    h.sim.endJob(jobId, { status: 'completed', prLink: `${PR}0` });
    await eventually(() => posted(rootTs, `${PR}0`), 5_000, 'the follow-up’s PR');
    expect(JSON.stringify(h.threadPosts(rootTs))).not.toContain('did not answer in time');
  });

  it('a job archived after it opened a pull request: the thread still gets the link', async () => {
    const { jobId, rootTs } = await h.startJob('Fix the links');
    h.sim.endJob(jobId, { status: 'archived', prLink: PR });
    await eventually(() => posted(rootTs, 'archived'), 5_000, 'the outcome');
    expect(posted(rootTs, PR)).toBe(true);
  });

  it('a status the bot does not know is shown as it is, logged once, and the job is polled until it ends', async () => {
    const getAll = { count: Number.POSITIVE_INFINITY, match: { operation: 'get' as const } };
    h.sim.injectFault({ kind: 'job', set: { status: 'queued' }, ...getAll });
    const { jobId, rootTs } = await h.startJob('Fix the links');
    await eventually(() => h.lastRootUpdate(rootTs).includes('queued'), 3_000, 'the unknown status on the root');
    await sleep(300);
    expect(h.app.logs().match(/"event":"poller.unknown_status"/g)).toHaveLength(1);
    h.sim.clearFaults();
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => posted(rootTs, PR), 5_000, 'PR');
  });

  it('a status missing from a poll is still active: the job keeps being polled, nothing is posted', async () => {
    const { jobId, rootTs } = await h.startJob('Fix the typo');
    h.sim.injectFault({ kind: 'job', omit: ['status'], count: 5, match: { operation: 'get' } });
    await sleep(600);
    expect(h.threadPosts(rootTs)).toHaveLength(0);
    h.sim.endJob(jobId, { status: 'failed' });
    await eventually(() => posted(rootTs, 'failed'), 5_000, 'the outcome');
  });

  it.each([413, 409, 402])(
    'a %i on create is a refusal: the service’s words, the text echoed, no root, the slot back',
    async (status) => {
      const error = 'Prompt is too large';
      h.sim.injectFault({ kind: 'status', status, error, count: 1, match: { operation: 'create' } });
      await h.command('/agent A <very> long instruction');
      const text = String((await h.answer()).args.text);
      expect(text).toContain(`Mintlify refused the instruction: ${error}`);
      expect(text).toContain('A &lt;very&gt; long instruction');
      expect(text).not.toContain('did not answer in time');
      await eventually(() => h.slack.callsTo('chat.delete').length === 1, 3_000, 'the root withdrawn');
      expect((await h.app.app.deps.quota.usage(TEST_PROJECT_ID, 'create')).used).toBe(0);
    },
  );

  it('a poll that never matches the contract still expires after JOB_MAX_AGE_MS, with its note', async () => {
    await h.restart({ env: { JOB_MAX_AGE_MS: '1500' } });
    const { rootTs } = await h.startJob('Never answered properly');
    const html = { status: 200, body: '<html>', contentType: 'text/html' };
    h.sim.injectFault({ kind: 'not-json', ...html, count: Number.POSITIVE_INFINITY, match: { operation: 'get' } });
    await eventually(() => posted(rootTs, 'stopped tracking'), 8_000, 'expiry');
    await eventually(() => h.lastRootUpdate(rootTs).includes('Stopped tracking'), 3_000, 'root');
  });
});

/**
 * The service takes a follow-up up asynchronously ("poll the get job endpoint to track progress"): for a moment
 * after its 200 the job still shows the previous end, which must not pass for the follow-up's result.
 */
describe.each(storeKinds)('a follow-up the service takes up a moment later ($label)', (store) => {
  const simulator = { jobDurationMs: LONG_JOB_MS, followUpTakeUpMs: 200 };
  const h = useHarness({ store, simulator, env: FAST_POLL, boot: true });
  const posts = (rootTs: string, words: string) =>
    h.threadPosts(rootTs).filter((c) => String(c.args.text).includes(words)).length;

  it('the previous pull request is not posted again as its result; its own end is, once', async () => {
    const { jobId, rootTs } = await h.startJob('Document the webhooks');
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => posts(rootTs, PR) === 1, 5_000, 'the first PR');
    await h.deliver(threadReply(rootTs, { text: 'Also add an example response' }));
    await eventually(() => h.sim.getJob(jobId)?.status === 'active', 5_000, 'the service took the follow-up up');
    await sleep(500);
    expect(posts(rootTs, PR)).toBe(1);
    expect(h.lastRootUpdate(rootTs)).toContain('Working');
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => posts(rootTs, 'updated the pull request') === 1, 5_000, 'the follow-up’s result');
    await sleep(300);
    expect(posts(rootTs, PR)).toBe(2);
  });

  it('a failed job told "reply with more detail": the reply is not reported failed at once', async () => {
    const { jobId, rootTs } = await h.startJob('Document the webhooks');
    h.sim.endJob(jobId, { status: 'failed' });
    await eventually(() => posts(rootTs, 'The agent job failed') === 1, 5_000, 'the failure');
    await h.deliver(threadReply(rootTs, { text: 'Try again, the page is the webhooks one' }));
    await eventually(() => h.sim.getJob(jobId)?.status === 'active', 5_000, 'the service took the follow-up up');
    await sleep(500);
    expect(posts(rootTs, 'The agent job failed')).toBe(1);
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => posts(rootTs, PR) === 1, 5_000, 'the retry’s PR');
  });
});
