import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/store/store.js';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { type Harness, useHarness } from '../support/harness.js';
import { redisStore, splitRedis, storeKinds } from '../support/redis.js';
import { loseNamespaceData } from '../support/redis-faults.js';
import { settle } from '../support/steps.js';
import { eventually } from '../support/test-app.js';

/** Jobs in these tests end only when a test ends them (sim.endJob). */
const LONG_JOB_MS = 60_000;
/** The app's default: `SLACK_PLAN_CARD` unset (the test environment pins the status line for other suites). */
const DEFAULTS = { env: { SLACK_PLAN_CARD: '' } };

interface Card {
  title: string;
  tasks: { task_id: string; title: string; status: string }[];
}

/** The root's blocks as Slack shows them (streamed or rewritten), and its plan. */
const blocksOf = (h: Harness, rootTs: string) =>
  (h.slack.tenant().message(CHANNEL_ID, rootTs)?.blocks ?? []) as { type: string }[];
const planOf = (h: Harness, rootTs: string) => blocksOf(h, rootTs).find((b) => b.type === 'plan') as Card | undefined;
const task = (h: Harness, rootTs: string, id: string) => planOf(h, rootTs)?.tasks.find((t) => t.task_id === id);

/** Runs `/agent <prompt>` and waits for its root: a stream, bound to its job. */
async function startCard(h: Harness, prompt: string) {
  const { ack } = await h.command(`/agent ${prompt}`);
  expect(ack).toBeUndefined();
  const started = await eventually(() => h.slack.callsTo('chat.startStream').at(-1), 8_000, 'the stream');
  const rootTs = await eventually(
    () => h.slack.tenant().messages.find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(prompt))?.ts,
    5_000,
    'the root',
  );
  const { jobId } = await h.jobOf(CHANNEL_ID, rootTs);
  return { started, rootTs, jobId };
}

/** The job the root's Slack metadata names (what healing and a reply after a loss read back). */
const metadataOf = (h: Harness, rootTs: string) =>
  h.slack.tenant().message(CHANNEL_ID, rootTs)?.metadata as
    | { event_type: string; event_payload: { job_id: string; root?: string } }
    | undefined;
const rootUpdates = (h: Harness, rootTs: string) => h.slack.callsTo('chat.update').filter((c) => c.args.ts === rootTs);

const prPosts = (h: Harness, rootTs: string, pr: string) =>
  h.threadPosts(rootTs).filter((p) => String(p.args.text).includes(pr));

describe.each(storeKinds)('the plan card ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: LONG_JOB_MS } });

  it('by default the root is one plan card from start to PR: streamed until the job exists, then carrying it, through 429s', async () => {
    await h.boot(DEFAULTS);
    // Slack answers the stop that follows the job's creation with a 429 first: the card waits, then stops.
    h.slack.fail('chat.stopStream', { status: 429, retryAfterSec: 1 });
    const { started, rootTs, jobId } = await startCard(h, 'Document the retry policy');
    expect(started.args).toMatchObject({ channel: CHANNEL_ID, task_display_mode: 'plan', recipient_user_id: USER_ID });
    expect(started.args.thread_ts).toBeUndefined();
    // Stopped as soon as the job exists, with the job's metadata and the session still working.
    await eventually(() => metadataOf(h, rootTs)?.event_payload.job_id === jobId, 8_000, 'the job on the root');
    const stops = h.slack.callsTo('chat.stopStream');
    expect(stops).toHaveLength(2);
    expect(stops[1]?.args).toMatchObject({ ts: rootTs, session_status: 'processing' });
    expect(metadataOf(h, rootTs)).toMatchObject({ event_type: 'mintlify_agent_job', event_payload: { root: 'card' } });
    await eventually(() => task(h, rootTs, 'working')?.status === 'in_progress', 5_000, 'the agent working');
    expect(task(h, rootTs, 'created')).toMatchObject({ status: 'complete' });
    expect(task(h, rootTs, 'created')?.title).toMatch(/^Created on /);
    expect(task(h, rootTs, 'working')?.title).toContain('elapsed');
    expect(task(h, rootTs, 'result')).toMatchObject({ title: 'Pull request', status: 'pending' });

    // Every later phase rewrites the same message, its metadata with it, through a 429 there too.
    h.slack.fail('chat.update', { status: 429, retryAfterSec: 1 });
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/21' });
    await eventually(() => task(h, rootTs, 'result')?.status === 'complete', 10_000, 'the PR task');
    expect(task(h, rootTs, 'result')?.title).toBe('Pull request opened');
    expect(task(h, rootTs, 'working')).toMatchObject({ title: 'Agent finished', status: 'complete' });
    expect(JSON.stringify(blocksOf(h, rootTs))).toContain('"url":"https://github.com/acme/docs/pull/21"');
    expect(rootUpdates(h, rootTs).every((c) => JSON.stringify(c.args.metadata).includes(jobId))).toBe(true);
    await settle();
    expect(prPosts(h, rootTs, 'pull/21')).toHaveLength(1);
    // One message: no status-line root beside the card, and the stream stopped once.
    expect(h.slack.tenant().messages.filter((m) => !m.thread_ts)).toHaveLength(1);
    expect(h.slack.callsTo('chat.stopStream')).toHaveLength(2);
    expect(h.slack.callsTo('chat.postMessage').filter((c) => !c.args.thread_ts)).toEqual([]);
  });

  it('survives the stream expiring before the job exists: the same card rewritten with chat.update, its job on it', async () => {
    await h.boot(DEFAULTS);
    // Slack ends a stream whose appends stopped for a while: here, before the job's first refresh.
    h.slack.streamExpiryMs = 0;
    const { rootTs, jobId } = await startCard(h, 'Rewrite the quickstart');
    await eventually(() => task(h, rootTs, 'working')?.status === 'in_progress', 5_000, 'the agent working');
    expect(metadataOf(h, rootTs)?.event_payload.job_id).toBe(jobId);
    await h.deliver(h.say(USER_ID, CHANNEL_ID, 'Include the backoff table', { threadTs: rootTs }).events);
    await eventually(() => task(h, rootTs, 'follow_up')?.status === 'complete', 10_000, 'the follow-up task');
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/22' });
    await eventually(() => task(h, rootTs, 'result')?.status === 'complete', 10_000, 'the PR task');
    expect(task(h, rootTs, 'result')?.title).toBe('Pull request updated');
    const blocks = blocksOf(h, rootTs);
    expect(blocks[0]).toMatchObject({ type: 'section' });
    expect(JSON.stringify(blocks)).toContain('"url":"https://github.com/acme/docs/pull/22"');
    expect(rootUpdates(h, rootTs).length).toBeGreaterThanOrEqual(2);
    await settle();
    expect(prPosts(h, rootTs, 'pull/22')).toHaveLength(1);
    expect(h.slack.tenant().messages.filter((m) => !m.thread_ts)).toHaveLength(1);
  });

  it('a stopped job ends its card with why; a reply resumes it on the same card', async () => {
    await h.boot(DEFAULTS);
    const { rootTs } = await startCard(h, 'Rename the guides');
    await eventually(() => task(h, rootTs, 'working')?.status === 'in_progress', 5_000, 'the agent working');
    await h.command('/agent stop');
    await eventually(() => task(h, rootTs, 'working')?.status === 'error', 5_000, 'the stopped task');
    expect(task(h, rootTs, 'working')?.title).toBe('Stopped');
    // The stream was stopped when the job was created; the Stop is a rewrite.
    expect(h.slack.callsTo('chat.stopStream')).toHaveLength(1);
    await h.deliver(h.say(USER_ID, CHANNEL_ID, 'Only fix the typos', { threadTs: rootTs }).events);
    await eventually(() => task(h, rootTs, 'working')?.status === 'in_progress', 5_000, 'working again');
    expect(task(h, rootTs, 'follow_up')).toMatchObject({ status: 'complete' });
    expect(h.slack.tenant().messages.filter((m) => !m.thread_ts)).toHaveLength(1);
  });

  it('an agent app: the stop keeps the session processing (Slack would set it active), Stop still there', async () => {
    h.slack.view = 'agent_view';
    await h.boot(DEFAULTS);
    const { rootTs, jobId } = await startCard(h, 'Document the pagination');
    await eventually(() => h.slack.tenant().agentSession(CHANNEL_ID, rootTs)?.status, 5_000, 'the session');
    await eventually(() => metadataOf(h, rootTs)?.event_payload.job_id === jobId, 5_000, 'the stream stopped');
    await settle();
    const session = h.slack.tenant().agentSession(CHANNEL_ID, rootTs);
    expect(session?.statuses).not.toContain('active');
    expect(session?.status).toBe('processing');
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/25' });
    await eventually(() => h.slack.tenant().agentSession(CHANNEL_ID, rootTs)?.status === 'active', 10_000, 'active');
  });

  it('when the service may or may not have made the job, the card stops streaming and says its status is unknown', async () => {
    await h.boot(DEFAULTS);
    h.sim.injectFault({ kind: 'status', status: 502, count: 1, match: { method: 'POST' } });
    await h.command('/agent Add a changelog entry');
    expect((await h.answer()).args.text).toContain('cannot tell whether the job started');
    const rootTs = h.slack.tenant().messages.find((m) => !m.thread_ts)?.ts;
    expect(h.slack.callsTo('chat.stopStream').map((c) => c.args.ts)).toEqual([rootTs]);
    // Stopped first, then rewritten: Slack refuses an update while the message streams (streaming_state_conflict).
    const order = h.slack.calls.map((c) => c.method).filter((m) => m === 'chat.stopStream' || m === 'chat.update');
    expect(order).toEqual(['chat.stopStream', 'chat.update']);
    expect(JSON.stringify(blocksOf(h, rootTs ?? ''))).toContain('Status unknown');
  });

  // About the card, not the topology: once (the store's retries of the binding take seconds).
  if (store.kind === 'memory')
    it('when the store refuses the job’s binding, the card stops streaming and says the job started untracked', async () => {
      await h.boot(DEFAULTS);
      // Every instance's store refuses the binding (the one write a started job needs before it can be followed).
      for (const { jobs } of h.app.instances.map((instance) => instance.deps.store)) {
        jobs.create = () => Promise.reject(new StoreUnavailableError('The store did not answer jobs.create'));
      }
      await h.command('/agent Add a changelog entry');
      const rootTs = await eventually(() => h.slack.tenant().messages.find((m) => !m.thread_ts)?.ts, 8_000, 'the root');
      // The binding is tried five times first, over about 8 s (250 ms doubling).
      await eventually(
        () => h.threadPosts(rootTs).find((p) => String(p.args.text).includes('received your instruction')),
        20_000,
        'the note in the thread',
      );
      expect(h.slack.callsTo('chat.stopStream').map((c) => c.args.ts)).toEqual([rootTs]);
      const card = JSON.stringify(blocksOf(h, rootTs));
      expect(card).toMatch(/Started as job .+, but I cannot follow it here/);
    });

  // About the card, not the topology: once.
  if (store.kind === 'memory')
    it('when the store did not keep the stream’s mark, the card is still stopped and rewritten with its job', async () => {
      await h.boot(DEFAULTS);
      // The one write that says the root still streams is lost: the first refresh takes the card for a rewrite.
      for (const { kv } of h.app.instances.map((instance) => instance.deps.store)) {
        const set = kv.set.bind(kv);
        kv.set = (key, ...rest) =>
          key.startsWith('plancard:')
            ? Promise.reject(new StoreUnavailableError('The store did not answer kv.set'))
            : set(key, ...rest);
      }
      const { rootTs, jobId } = await startCard(h, 'Document the limits');
      // Slack refuses to rewrite a message still streaming (chat.update: streaming_state_conflict).
      await eventually(() => metadataOf(h, rootTs)?.event_payload.job_id === jobId, 8_000, 'the job on the card');
      expect(h.slack.streamShown(CHANNEL_ID, rootTs)).toBe('final');
      await eventually(() => task(h, rootTs, 'working')?.status === 'in_progress', 5_000, 'the agent working');
      expect(h.slack.tenant().messages.filter((m) => !m.thread_ts)).toHaveLength(1);
    });

  it('a stop Slack refuses for what it carries (invalid_arguments) still ends the stream: the card rewritten at once', async () => {
    await h.boot(DEFAULTS);
    h.slack.fail('chat.stopStream', { error: 'invalid_arguments' });
    const { rootTs, jobId } = await startCard(h, 'Document the refusal');
    await eventually(() => metadataOf(h, rootTs)?.event_payload.job_id === jobId, 8_000, 'the job on the card');
    const stops = h.slack.callsTo('chat.stopStream').filter((c) => c.args.ts === rootTs);
    expect(stops).toHaveLength(2); // refused with the card's tasks and blocks, then ended bare
    expect(stops[1]?.args.blocks).toBeUndefined();
    expect(rootUpdates(h, rootTs).length).toBeGreaterThan(0);
    expect(planOf(h, rootTs)?.title).toBeDefined();
  });

  it('where Slack refuses streaming, the root is today’s status line', async () => {
    h.slack.streaming = false;
    await h.boot(DEFAULTS);
    const { jobId, rootTs } = await h.startJob('Document the CLI');
    expect(h.slack.callsTo('chat.startStream')).toHaveLength(1);
    expect(h.lastRootUpdate(rootTs)).toContain('Working');
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/23' });
    await eventually(() => h.lastRootUpdate(rootTs).includes('Pull request ready'), 10_000, 'the status line');
    expect(planOf(h, rootTs)).toBeUndefined();
    await settle();
    expect(prPosts(h, rootTs, 'pull/23')).toHaveLength(1);
  });

  it('SLACK_PLAN_CARD=false keeps the status line, streaming or not', async () => {
    await h.boot({ env: { SLACK_PLAN_CARD: 'false' } });
    const { rootTs } = await h.startJob('Document the SDK');
    expect(h.slack.callsTo('chat.startStream')).toEqual([]);
    expect(h.lastRootUpdate(rootTs)).toContain('Working');
    expect(planOf(h, rootTs)).toBeUndefined();
  });
});

/** Only Redis loses its data (FLUSHDB, an empty restart): the job is read back from the card's metadata. */
describe.each([redisStore, splitRedis])('the plan card after a data loss ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: LONG_JOB_MS } });

  it('after the store lost its data, a reply in the thread finds the job from the card and keeps it a card', async () => {
    await h.boot(DEFAULTS);
    const { rootTs, jobId } = await startCard(h, 'Document the webhooks');
    await eventually(() => task(h, rootTs, 'working')?.status === 'in_progress', 5_000, 'the agent working');
    await loseNamespaceData(h.namespace);
    await h.deliver(h.say(USER_ID, CHANNEL_ID, 'Also the retry header', { threadTs: rootTs }).events);
    const followUp = await eventually(() => h.followUps()[0], 8_000, 'the follow-up sent');
    expect(followUp.path).toContain(jobId);
    await eventually(() => task(h, rootTs, 'follow_up')?.status === 'complete', 10_000, 'the follow-up on the card');
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/24' });
    await eventually(() => task(h, rootTs, 'result')?.status === 'complete', 10_000, 'the PR task');
    await settle();
    expect(prPosts(h, rootTs, 'pull/24')).toHaveLength(1);
    expect(h.creates()).toHaveLength(1);
  });
});
