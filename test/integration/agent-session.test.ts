import { webApi } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { STOP_INSTRUCTION } from '../../src/agent/session/messages.js';
import { QueueUnavailableError } from '../../src/queue/engine.js';
import { StoreUnavailableError } from '../../src/store/store.js';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { type Harness, useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';

/** Jobs in these tests end only when a test ends them (sim.endJob). */
const LONG_JOB_MS = 60_000;
const BOB = 'U456BOB';
/** Slack's Stop is honoured within this. */
const STOP_WITHIN_MS = 5_000;

/** The agent session of the thread under `rootTs`, as the stand-in holds it. */
const sessionOf = (h: Harness, rootTs: string) => h.slack.tenant().agentSession(CHANNEL_ID, rootTs);

/** Statuses as a person saw them change (the same status set twice by racing instances shows once). */
const changes = (statuses: readonly string[] = []) => statuses.filter((s, i) => s !== statuses[i - 1]);

async function sessionBecomes(h: Harness, rootTs: string, status: string) {
  return eventually(() => sessionOf(h, rootTs)?.status === status && sessionOf(h, rootTs), 5_000, `session ${status}`);
}

const transports = [
  ...storeKinds.map((store) => ({ name: store.label, store, socketMode: false })),
  { name: 'Socket Mode, memory store', store: storeKinds[0], socketMode: true },
];

describe.each(transports)('every job is an agent session ($name)', ({ store, socketMode }) => {
  const h = useHarness({ store, simulator: { jobDurationMs: LONG_JOB_MS }, slack: { socketMode } });
  const stopsSent = () => h.followUps().filter((r) => (r.body as { prompt?: string }).prompt === STOP_INSTRUCTION);

  it('the session follows the job: processing with its title, renamed by a follow-up, active at its end', async () => {
    h.slack.view = 'agent_view';
    await h.boot();
    const { jobId, rootTs } = await h.startJob('Document the <retry> policy');
    const session = await sessionBecomes(h, rootTs, 'processing');
    expect(session).toMatchObject({ title: 'Document the <retry> policy', initiator: USER_ID });

    await h.deliver(h.say(USER_ID, CHANNEL_ID, 'Include the backoff table', { threadTs: rootTs }).events);
    await eventually(() => sessionOf(h, rootTs)?.titles?.includes('Include the backoff table'), 5_000, 'the rename');
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/9' });
    await eventually(() => h.threadPosts(rootTs).some((p) => String(p.args.text).includes('pull/9')));
    await sessionBecomes(h, rootTs, 'active');
    expect(changes(sessionOf(h, rootTs)?.statuses)).toEqual(['processing', 'active']);
  });

  it('a follow-up with a file renames the session after what was said (or the file’s name), not the file’s text', async () => {
    h.slack.view = 'agent_view';
    await h.boot();
    const { rootTs } = await h.startJob('Document the retries');
    await sessionBecomes(h, rootTs, 'processing');
    const snippet = { name: 'retry.md', content: '# Retries\n\nWe back off 3 times.\n' };
    const titles = () => sessionOf(h, rootTs)?.titles ?? [];
    await h.deliver(
      h.slack.people.sharesFile(USER_ID, CHANNEL_ID, snippet, { text: 'Use this', threadTs: rootTs }).events,
    );
    await eventually(() => titles().length === 1, 5_000, 'the rename');
    await h.deliver(h.slack.people.sharesFile(USER_ID, CHANNEL_ID, snippet, { threadTs: rootTs }).events);
    await eventually(() => titles().length === 2, 5_000, 'the second rename');
    expect(titles()).toEqual(['Use this', '[file: retry.md]']);
  });

  it('a status Slack refuses never breaks the job: after a 429 the session catches up, the job unharmed', async () => {
    h.slack.view = 'agent_view';
    await h.boot();
    h.slack.fail('agents.sessions.setStatus', { status: 429, retryAfterSec: 1 });
    const { jobId, rootTs } = await h.startJob('Document the limits');
    await sessionBecomes(h, rootTs, 'processing');
    expect(h.slack.callsTo('agents.sessions.setStatus').length).toBeGreaterThanOrEqual(2);
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/12' });
    await eventually(() => h.threadPosts(rootTs).some((p) => String(p.args.text).includes('pull/12')));
    await sessionBecomes(h, rootTs, 'active');
  });

  it('an archived job closes its session', async () => {
    h.slack.view = 'agent_view';
    await h.boot();
    const { jobId, rootTs } = await h.startJob('Document the archive');
    await sessionBecomes(h, rootTs, 'processing');
    h.sim.endJob(jobId, { status: 'archived' });
    await sessionBecomes(h, rootTs, 'closed');
  });

  it('Stop stops the job within seconds: the agent told, the thread told, the session active, no PR after', async () => {
    h.slack.view = 'agent_view';
    await h.boot();
    const { jobId, rootTs } = await h.startJob('Rewrite the quickstart');
    await sessionBecomes(h, rootTs, 'processing');

    const pressed = h.slack.people.stopsSession(USER_ID, CHANNEL_ID, rootTs);
    await h.deliver(pressed);
    await h.deliver(pressed, { retry: 1 }); // Slack's redelivery: the same press, answered once
    const told = await eventually(
      () => h.threadPosts(rootTs).find((p) => String(p.args.text).includes(`Stopped by <@${USER_ID}>`)),
      STOP_WITHIN_MS,
      'the thread told',
    );
    expect(told.args.text).toContain('telling the agent to stop');
    await eventually(() => stopsSent().length === 1, 5_000, 'the agent told');
    await settle();
    expect(h.slack.callsTo('chat.postEphemeral')).toEqual([]);
    expect(stopsSent()).toHaveLength(1);
    expect(stopsSent().map((r) => r.path)).toEqual([`/v2/agent/${TEST_PROJECT_ID}/job/${jobId}/message`]);
    await sessionBecomes(h, rootTs, 'active');
    await eventually(() => h.lastRootUpdate(rootTs).includes(`Stopped by <@${USER_ID}>`), 5_000, 'the root says who');
    const record = await h.app.app.deps.store.jobs.get({ project: TEST_PROJECT_ID, jobId });
    expect(record?.ended).toBe('halted');
    expect(await h.app.app.deps.store.jobs.active(TEST_PROJECT_ID)).not.toContain(jobId);

    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/10' });
    await settle();
    expect(h.threadPosts(rootTs).filter((p) => String(p.args.text).includes('pull/10'))).toEqual([]);

    // A reply gives the agent new instructions: the job is followed again, its session processing.
    await h.deliver(h.say(USER_ID, CHANNEL_ID, 'Only fix the typos', { threadTs: rootTs }).events);
    await sessionBecomes(h, rootTs, 'processing');
    expect(h.followUps().at(-1)?.body).toEqual({ prompt: 'Only fix the typos' });
  });

  it('Stop where the store knows no job (its data lost): the person hears it, and the session leaves processing', async () => {
    h.slack.view = 'agent_view';
    await h.boot();
    // A processing session on a thread whose job the store no longer has.
    const rootTs = h.slack.people.says(USER_ID, CHANNEL_ID, 'Rewrite the quickstart').ts;
    const client = new webApi.WebClient(h.slack.workspace.botToken, { slackApiUrl: h.slack.apiUrl });
    await client.agents.sessions.setStatus({ channel_id: CHANNEL_ID, thread_ts: rootTs, status: 'processing' });

    await h.deliver(h.slack.people.stopsSession(USER_ID, CHANNEL_ID, rootTs));
    const told = await eventually(
      () => h.slack.callsTo('chat.postEphemeral').find((c) => c.args.user === USER_ID),
      STOP_WITHIN_MS,
      'the person told',
    );
    expect(told.args).toMatchObject({ channel: CHANNEL_ID, thread_ts: rootTs });
    await sessionBecomes(h, rootTs, 'active');
  });

  it('Stop while the queue refuses the root’s refresh: the agent is still told, and the root still says stopped', async () => {
    h.slack.view = 'agent_view';
    await h.boot();
    const { rootTs } = await h.startJob('Rewrite the quickstart');
    await sessionBecomes(h, rootTs, 'processing');
    let refused = 0;
    for (const { refreshes } of h.app.instances.map((instance) => instance.deps.lanes)) {
      const add = refreshes.add.bind(refreshes);
      refreshes.add = (...args) =>
        ++refused === 1
          ? Promise.reject(new QueueUnavailableError('Queue storage unavailable: ECONNRESET'))
          : add(...args);
    }

    await h.deliver(h.slack.people.stopsSession(USER_ID, CHANNEL_ID, rootTs));
    await eventually(() => stopsSent().length === 1, STOP_WITHIN_MS, 'the agent told');
    await eventually(() => h.lastRootUpdate(rootTs).includes(`Stopped by <@${USER_ID}>`), 5_000, 'the root says who');
    expect(refused).toBeGreaterThan(1);
    expect(h.slack.callsTo('chat.postEphemeral').filter((c) => String(c.args.text).includes('went wrong'))).toEqual([]);
  });

  it('Stop while the store does not answer: the person hears it, Stop stays there, and pressed again it stops', async () => {
    h.slack.view = 'agent_view';
    await h.boot();
    const { rootTs } = await h.startJob('Rewrite the quickstart');
    await sessionBecomes(h, rootTs, 'processing');
    let down = true;
    for (const { jobs } of h.app.instances.map((instance) => instance.deps.store)) {
      const forThread = jobs.forThread.bind(jobs);
      jobs.forThread = (...args) =>
        down ? Promise.reject(new StoreUnavailableError('The store did not answer')) : forThread(...args);
    }
    await h.deliver(h.slack.people.stopsSession(USER_ID, CHANNEL_ID, rootTs));
    const told = await eventually(
      () => h.slack.callsTo('chat.postEphemeral').find((c) => String(c.args.text).includes('job store')),
      STOP_WITHIN_MS,
      'the person told',
    );
    expect(String(told.args.text)).toContain('Press Stop again');
    await settle();
    expect(sessionOf(h, rootTs)?.status).toBe('processing');
    expect(stopsSent()).toHaveLength(0);

    down = false;
    await h.deliver(h.slack.people.stopsSession(USER_ID, CHANNEL_ID, rootTs));
    await eventually(() => stopsSent().length === 1, STOP_WITHIN_MS, 'the agent told');
    await sessionBecomes(h, rootTs, 'active');
  });

  it('when Mintlify refuses the instruction to stop, the thread says the agent may still finish', async () => {
    h.slack.view = 'agent_view';
    await h.boot();
    const { rootTs } = await h.startJob('Rename the guides');
    await sessionBecomes(h, rootTs, 'processing');
    await h.sim.injectFault({ kind: 'status', status: 404, count: 1, match: { operation: 'follow-up' } });
    await h.deliver(h.slack.people.stopsSession(USER_ID, CHANNEL_ID, rootTs));
    const warning = await eventually(
      () => h.threadPosts(rootTs).find((p) => String(p.args.text).includes('did not take the instruction')),
      STOP_WITHIN_MS,
      'the warning',
    );
    expect(warning.args.text).toContain('check the Mintlify dashboard');
    await sessionBecomes(h, rootTs, 'active');
  });

  it('a Stop from someone who may not use the agent is refused as a reply would be; the job goes on', async () => {
    h.slack.view = 'agent_view';
    await h.boot({ env: { AGENT_ALLOWED_USERS: USER_ID } });
    const { jobId, rootTs } = await h.startJob('Document the CLI');
    await sessionBecomes(h, rootTs, 'processing');

    await h.deliver(h.slack.people.stopsSession(BOB, CHANNEL_ID, rootTs));
    const refusal = await eventually(
      () => h.slack.callsTo('chat.postEphemeral').find((c) => c.args.user === BOB),
      5_000,
      'the refusal',
    );
    expect(refusal.args).toMatchObject({ channel: CHANNEL_ID, thread_ts: rootTs });
    expect(refusal.args.text).toContain('not allowed to use the Mintlify agent');
    expect(stopsSent()).toEqual([]);
    expect((await h.app.app.deps.store.jobs.get({ project: TEST_PROJECT_ID, jobId }))?.ended).toBeNull();
    expect(sessionOf(h, rootTs)?.status).toBe('processing');
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/11' });
    await eventually(() => h.threadPosts(rootTs).some((p) => String(p.args.text).includes('pull/11')));
  });

  it('without sessions (assistant_view), the job runs and `/agent stop` stops it the same way', async () => {
    await h.boot();
    await h.command('/agent stop');
    expect((await h.answer()).args.text).toContain('nothing to stop');

    const { jobId, rootTs } = await h.startJob('Fix the broken links');
    expect(sessionOf(h, rootTs)).toBeUndefined();
    await h.command('/agent stop');
    await eventually(
      () => h.threadPosts(rootTs).find((p) => String(p.args.text).includes(`Stopped by <@${USER_ID}>`)),
      STOP_WITHIN_MS,
      'the thread told',
    );
    await eventually(() => stopsSent().length === 1, 5_000, 'the agent told');
    expect((await h.app.app.deps.store.jobs.get({ project: TEST_PROJECT_ID, jobId }))?.ended).toBe('halted');
    // A reply resumes the job, which then ends: four changes of its state in all.
    await h.deliver(h.say(USER_ID, CHANNEL_ID, 'Only fix the typos', { threadTs: rootTs }).events);
    await eventually(() => h.followUps().length === 2, 5_000, 'the reply sent on');
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/14' });
    await eventually(() => h.threadPosts(rootTs).some((p) => String(p.args.text).includes('pull/14')));
    await settle();
    // Slack's refusal (`feature_disabled`) is remembered for the workspace: not asked at each change (two changes
    // racing before the mark is written may both ask), the job unharmed.
    expect(h.slack.callsTo('agents.sessions.setStatus').length).toBeLessThanOrEqual(2);
  });
});
