import { describe, expect, it } from 'vitest';
import { homeOpened } from '../fixtures/conversation.js';
import { threadReply, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';

const PR = 'https://github.com/acme/docs/pull/31';
const UNSURE = 'cannot tell whether the agent received this instruction';

/** A run the agent finishes quicker than a poll: the follow-up's prompt starts so. */
const QUICK = 'Quick:';

/**
 * A follow-up whose answer was lost (a timeout, a 5xx) may or may not have reached the agent: its round is tracked
 * all the same, and posts only when the job shows it took the follow-up up. A sure round's take-up window is
 * 6 × 200 ms; an unsure round is watched for 6 × 600 ms (the longest interval), so a take-up 1.8 s into the round
 * falls past the first and well within the second.
 */
describe.each(storeKinds)('a follow-up of unknown fate ($label)', (store) => {
  const h = useHarness({
    store,
    simulator: { jobDurationMs: (prompt) => (prompt.startsWith(QUICK) ? 0 : 60_000) },
    env: { POLL_INTERVAL_MS: '200', POLL_MAX_INTERVAL_MS: '600' },
    boot: true,
  });

  const unsureNote = () =>
    h.slack.callsTo('chat.postEphemeral').find((c) => String(c.args.text).includes(UNSURE))?.args.text;

  /** The marks put on the person's replies in the thread: unknown fate is neither ✅ nor ❌. */
  const marked = (rootTs: string) => h.slack.callsTo('reactions.add').filter((c) => c.args.timestamp !== rootTs);
  const marksOn = (rootTs: string) => marked(rootTs).map((c) => c.args.name);

  async function endedWithPullRequest(): Promise<{ jobId: string; rootTs: string }> {
    const job = await h.startJob('Document the webhooks');
    h.sim.endJob(job.jobId, { status: 'completed', prLink: PR });
    await eventually(() => h.threadPosts(job.rootTs).length === 1, 5_000, 'the first pull request');
    return job;
  }

  it('timed out but reached the agent: the job is seen working again and its result is posted once', async () => {
    const { jobId, rootTs } = await endedWithPullRequest();
    // The app gives up after its 1 s timeout; the simulator takes the follow-up 100 ms later.
    h.sim.injectFault({ kind: 'slow', delayMs: 1_100, count: 1, match: { operation: 'follow-up' } });
    await h.deliver(threadReply(rootTs, { text: 'Also the retry table' }));
    const note = await eventually(unsureNote, 5_000, 'the private answer');
    expect(note).toContain('If I see the agent take it up in the next few minutes, I post its result here');
    expect(note).toContain('>Also the retry table');
    expect(marksOn(rootTs)).toEqual(['eyes', 'grey_question']);
    await eventually(() => h.lastRootUpdate(rootTs).includes('Working'), 5_000, 'the root working again');
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => h.threadPosts(rootTs).length === 2, 5_000, 'the follow-up’s result');
    await settle(600);
    expect(h.threadPosts(rootTs)).toHaveLength(2);
    expect(h.threadPosts(rootTs)[1]?.args.text).toContain('updated the pull request');
    // Failed before: the ❔ stayed on the reply once its result was in the thread.
    const reply = marked(rootTs).at(-1)?.args.timestamp;
    const removed = h.slack.callsTo('reactions.remove').filter((c) => c.args.timestamp === reply);
    expect(removed.map((c) => c.args.name)).toEqual(['eyes', 'grey_question']);
    expect(marksOn(rootTs)).toEqual(['eyes', 'grey_question', 'white_check_mark']);
  });

  it('taken up only after the first polls saw the old end: still watched, and its result is posted once', async () => {
    const { jobId, rootTs } = await endedWithPullRequest();
    // Failed before: the round ended quietly 1.2 s in, and the result of the follow-up taken up later never came.
    // The app gives up after its 1 s timeout; the simulator takes the follow-up 1.8 s after that.
    h.sim.injectFault({ kind: 'slow', delayMs: 2_800, count: 1, match: { operation: 'follow-up' } });
    await h.deliver(threadReply(rootTs, { text: 'Also the retry table' }));
    await eventually(unsureNote, 5_000, 'the private answer');
    await eventually(() => h.app.logs().includes('poller.follow_up_pending'), 5_000, 'a poll seeing the old end');
    await eventually(() => h.lastRootUpdate(rootTs).includes('Working'), 8_000, 'the root working again');
    expect(h.app.logs()).not.toContain('poller.follow_up_not_landed');
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => h.threadPosts(rootTs).length === 2, 5_000, 'the follow-up’s result');
    await settle(800);
    expect(h.threadPosts(rootTs)).toHaveLength(2);
    expect(h.threadPosts(rootTs)[1]?.args.text).toContain('updated the pull request');
  });

  it('taken up and ended on the same pull request between two polls: the person was not promised a post', async () => {
    const { jobId, rootTs } = await endedWithPullRequest();
    await eventually(() => h.lastRootUpdate(rootTs).includes('Pull request ready'), 5_000, 'the root ended');
    h.sim.injectFault({ kind: 'slow', delayMs: 1_100, count: 1, match: { operation: 'follow-up' } });
    await h.deliver(threadReply(rootTs, { text: `${QUICK} fix the typo` }));
    const note = await eventually(unsureNote, 5_000, 'the private answer');
    // Failed before: the note promised a result "if it did". The service's job (AgentJob) has no updatedAt,
    // messages or history, so this run cannot be told from the old end: the words must not promise.
    expect(note).not.toContain('its result will be posted');
    expect(note).toContain('If I see the agent take it up in the next few minutes, I post its result here');
    expect(note).toContain('if I don’t, I say nothing more, though the agent may still have made the change');
    const ref = { project: TEST_PROJECT_ID, jobId };
    await eventually(
      async () => {
        const stored = await h.app.app.deps.store.jobs.get(ref);
        return stored?.round === 1 && stored.ended === 'pull_request';
      },
      10_000,
      'the follow-up’s round ended quietly',
    );
    expect(h.app.logs()).toContain('poller.follow_up_not_landed');
    // It did land: the agent ran it and updated the same pull request.
    expect(h.sim.counts().followUps).toBe(1);
    expect(h.sim.getJob(jobId)).toMatchObject({ status: 'completed', prLink: PR });
    expect(h.threadPosts(rootTs)).toHaveLength(1);
    expect(h.lastRootUpdate(rootTs)).not.toContain('updated');
  });

  it('answered 502 before it reached the agent: past the take-up window the round ends and the thread hears nothing more', async () => {
    const { jobId, rootTs } = await endedWithPullRequest();
    await eventually(() => h.lastRootUpdate(rootTs).includes('Pull request ready'), 5_000, 'the root ended');
    h.sim.injectFault({ kind: 'status', status: 502, count: 1, match: { operation: 'follow-up' } });
    await h.deliver(threadReply(rootTs, { text: 'Also the retry table' }));
    await eventually(unsureNote, 5_000, 'the private answer');
    // Failed before: ❌, a failure claimed where the private answer says it cannot tell.
    expect(marksOn(rootTs)).toEqual(['eyes', 'grey_question']);
    const ref = { project: TEST_PROJECT_ID, jobId };
    const record = await eventually(
      async () => {
        const stored = await h.app.app.deps.store.jobs.get(ref);
        return stored?.round === 1 && stored.ended !== null && stored;
      },
      10_000,
      'the follow-up’s round ended',
    );
    expect(record).toMatchObject({ ended: 'pull_request', prLink: PR });
    await settle(600);
    expect(h.threadPosts(rootTs)).toHaveLength(1);
    expect(h.lastRootUpdate(rootTs)).toContain('Pull request ready');
    expect(h.lastRootUpdate(rootTs)).not.toContain('updated');
    expect(await h.app.app.deps.store.jobs.active(TEST_PROJECT_ID)).toEqual([]);
    // Its fate is still unknown: the ❔ stays.
    expect(marksOn(rootTs)).toEqual(['eyes', 'grey_question']);
    expect(h.slack.callsTo('reactions.remove').map((c) => c.args.name)).toEqual(['eyes']);
  });

  it('while it is watched, App Home, `my jobs` and `/agent stop` go by the end the thread was told, as the root does', async () => {
    const { jobId, rootTs } = await endedWithPullRequest();
    await eventually(() => h.lastRootUpdate(rootTs).includes('Pull request ready'), 5_000, 'the root ended');
    h.sim.injectFault({ kind: 'status', status: 502, count: 1, match: { operation: 'follow-up' } });
    await h.deliver(threadReply(rootTs, { text: 'Also the retry table' }));
    await eventually(unsureNote, 5_000, 'the private answer');
    const ref = { project: TEST_PROJECT_ID, jobId };
    const watched = async () => {
      const stored = await h.app.app.deps.store.jobs.get(ref);
      return stored?.round === 1 && stored.ended === null;
    };
    expect(await watched()).toBe(true);

    // Failed before: Home and `my jobs` said "Working" while the root said "Pull request ready".
    await h.deliver(homeOpened(USER_ID, 'home'));
    const published = await eventually(() => h.slack.callsTo('views.publish').at(-1), 5_000, 'App Home');
    const home = JSON.stringify(published.args.view);
    expect(home).toContain('Pull request ready');
    expect(home).toContain('can’t tell yet whether the agent got the last follow-up');
    expect(home).not.toContain('Working');
    const mine = h.slack.people.says(USER_ID, `D${USER_ID}`, 'my jobs');
    await h.deliver(mine.events);
    const list = await eventually(
      () => h.slack.calls.find((c) => String(c.args.text ?? '').includes('Your newest Mintlify agent jobs')),
      5_000,
      'my jobs',
    );
    expect(list.args.text).toContain('Pull request ready');
    expect(list.args.text).not.toContain('Working');

    // Failed before: Stop "stopped" a job that was not running, and sent the agent an instruction that would start it.
    const answer = await h.privately('/agent stop');
    expect(answer).toContain('is not running as far as I can see');
    expect(answer).toContain('Pull request ready');
    expect(await watched()).toBe(true);
    await settle(300);
    expect(h.followUps()).toHaveLength(1);
    expect(h.threadPosts(rootTs)).toHaveLength(1);
    expect(h.lastRootUpdate(rootTs)).not.toContain('Stopped');
  });

  it('lost twice while the first is still watched, reaching the agent neither time: nothing posted, no "updated"', async () => {
    const { jobId, rootTs } = await endedWithPullRequest();
    await eventually(() => h.lastRootUpdate(rootTs).includes('Pull request ready'), 5_000, 'the root ended');
    h.sim.injectFault({ kind: 'status', status: 502, count: 2, match: { operation: 'follow-up' } });
    const unsureNotes = () => h.slack.callsTo('chat.postEphemeral').filter((c) => String(c.args.text).includes(UNSURE));
    await h.deliver(threadReply(rootTs, { text: 'Also the retry table' }));
    await eventually(() => unsureNotes().length === 1, 5_000, 'the first private answer');
    await h.deliver(threadReply(rootTs, { text: 'Also the retry table, please' }));
    await eventually(() => unsureNotes().length === 2, 5_000, 'the second private answer');
    // Failed before: the second round, started before the first ended, was sure, and posted "updated" 1.2 s in.
    const ref = { project: TEST_PROJECT_ID, jobId };
    await eventually(
      async () => {
        const stored = await h.app.app.deps.store.jobs.get(ref);
        return stored?.round === 2 && stored.ended !== null;
      },
      10_000,
      'the second round ended',
    );
    await settle(600);
    expect(h.threadPosts(rootTs)).toHaveLength(1);
    expect(h.lastRootUpdate(rootTs)).not.toContain('updated');
  });
});
