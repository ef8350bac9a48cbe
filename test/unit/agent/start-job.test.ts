import { describe, expect, it, vi } from 'vitest';
import { createQuota, HOURLY_LIMIT } from '../../../src/agent/quota.js';
import { type StartJobInput, startJob } from '../../../src/agent/start-job.js';
import { contextOf } from '../../../src/agent/thread-context.js';
import { QueueUnavailableError } from '../../../src/queue/engine.js';
import type { Simulator } from '../../../tools/simulator/server.js';
import { CHANNEL_ID, USER_ID } from '../../fixtures/slack.js';
import { createdPrompts, readable, storeDown, useAgentUnit } from './support.js';

const PROJECT = 'proj_test';
/** The next create request only. */
const ON_CREATE = { count: 1, match: { operation: 'create' } } as const;
const input: StartJobInput = { project: PROJECT, userId: USER_ID, channel: CHANNEL_ID, prompt: 'Document <retries>' };

describe('startJob', () => {
  const unit = useAgentUnit();

  /** The prompts the service was asked to start jobs with. */
  const created = () => createdPrompts(unit().sim);
  const used = async () => (await unit().deps.quota.usage(PROJECT, 'create')).used;

  it('posts the root message, creates the job, binds the thread, tracks it and shows it working', async () => {
    const { deps, slack, tracked, watched } = unit();
    const result = await startJob(deps, input);
    if (!result.ok) throw new Error(`refused: ${result.refusal.code}`);
    const { record } = result;
    expect(slack.messages).toHaveLength(1);
    const root = slack.messages[0];
    expect(root).toMatchObject({ channel: CHANNEL_ID, ts: record.statusTs });
    expect(root?.thread_ts).toBeUndefined();
    expect(readable(root)).toContain('Working');
    expect(readable(root)).toContain(`job \`${record.jobId}\``);
    expect(record).toMatchObject({ userId: USER_ID, prompt: 'Document <retries>', threadTs: root?.ts, round: 0 });
    expect(created()).toEqual(['Document <retries>']);
    expect(await deps.store.jobs.forThread([PROJECT], CHANNEL_ID, record.threadTs)).toEqual({
      project: PROJECT,
      jobId: record.jobId,
    });
    expect(tracked).toEqual([{ project: PROJECT, jobId: record.jobId }]);
    expect(watched.map((r) => r.jobId)).toEqual([record.jobId]);
    expect(await used()).toBe(1);
    expect(await deps.store.jobs.startingIn([PROJECT], CHANNEL_ID, record.threadTs)).toBeUndefined();
  });

  it('in an existing thread, answers there and sends its context after the prompt, noted in the status line', async () => {
    const { deps, slack } = unit();
    const asked = slack.postAs('U456BOB', CHANNEL_ID, 'The retry page is wrong');
    const context = contextOf(['Bob Lee: The retry page is wrong']);
    const result = await startJob(deps, { ...input, threadTs: asked.ts, context });
    if (!result.ok) throw new Error(`refused: ${result.refusal.code}`);
    const root = slack.messages.find((m) => m.user === 'UBOT');
    expect(root).toMatchObject({ thread_ts: asked.ts, ts: result.record.statusTs });
    expect(result.record.threadTs).toBe(asked.ts);
    expect(readable(root)).toContain('context: 1 earlier thread message');
    expect(created()).toEqual([`Document <retries>\n\n${context.text}`]);
  });

  it('starts nothing when a file shared with the instruction holds a key, as a follow-up with one is not sent', async () => {
    const { deps, slack } = unit();
    const files = { text: '```\n.env\nMINTLIFY_API_KEY=mint_live4f1c2d9e8b7aQxyz\n```', note: '1 file' };
    expect(await startJob(deps, { ...input, files })).toEqual({ ok: false, refusal: { code: 'secret' } });
    expect(slack.messages).toHaveLength(0);
    expect(created()).toEqual([]);
    expect(await used()).toBe(0);
  });

  it('marks the thread as starting while the service creates the job, and clears the mark after', async () => {
    const { deps } = unit();
    unit().sim.injectFault({ ...ON_CREATE, kind: 'slow', delayMs: 200 });
    const starting = startJob(deps, { ...input, threadTs: '1700000000.000100' });
    await vi.waitFor(() => expect(created()).toHaveLength(1));
    expect(await deps.store.jobs.startingIn(['proj_other', PROJECT], CHANNEL_ID, '1700000000.000100')).toBe('own');
    expect((await starting).ok).toBe(true);
    expect(await deps.store.jobs.startingIn([PROJECT], CHANNEL_ID, '1700000000.000100')).toBeUndefined();
  });

  it('refuses at the hourly limit before posting or calling the service, with when the next slot opens', async () => {
    const { deps, slack } = unit();
    for (let i = 0; i < HOURLY_LIMIT; i++) await deps.quota.take(PROJECT, 'create');
    const result = await startJob(deps, input);
    expect(result).toEqual({
      ok: false,
      refusal: { code: 'quota', project: PROJECT, resetInMs: expect.any(Number) },
    });
    expect(slack.messages).toEqual([]);
    expect(created()).toEqual([]);
  });

  it('refuses when the store cannot count the slot, before posting anything', async () => {
    const { deps, slack, logs } = unit();
    const result = await startJob({ ...deps, quota: createQuota(storeDown()) }, input);
    expect(result).toEqual({ ok: false, refusal: { code: 'store_unavailable' } });
    expect(slack.messages).toEqual([]);
    expect(created()).toEqual([]);
    expect(logs.text()).toContain('"event":"store.unavailable"');
  });

  it.each([
    ['a channel', CHANNEL_ID, false],
    ['a DM between people', 'D0PEOPLE', true],
  ])('when the bot cannot post in %s, starts nothing and gives the slot back', async (_where, channel, dm) => {
    const { deps, slack } = unit();
    slack.fail('chat.postMessage', { error: 'not_in_channel' });
    const result = await startJob(deps, { ...input, channel });
    expect(result).toEqual({ ok: false, refusal: { code: 'not_in_channel', directMessage: dm } });
    expect(created()).toEqual([]);
    expect(await used()).toBe(0);
  });

  it('when Slack refuses the root message otherwise, starts nothing and gives the slot back', async () => {
    const { deps, slack } = unit();
    slack.fail('chat.postMessage', { error: 'msg_too_long' });
    expect(await startJob(deps, input)).toEqual({ ok: false, refusal: { code: 'slack_failed' } });
    expect(created()).toEqual([]);
    expect(await used()).toBe(0);
  });

  it.each([
    [
      'refuses the key (401)',
      (sim: Simulator) => sim.injectFault({ kind: 'status', status: 401, count: 1 }),
      'unauthorized',
    ],
    [
      'refuses the prompt (400)',
      (sim: Simulator) => sim.injectFault({ kind: 'status', status: 400, count: 1 }),
      'refused',
    ],
    ['cannot be reached', (sim: Simulator) => sim.close(), 'unavailable'],
  ] as const)('when the service %s, withdraws the root message and gives the slot back', async (_why, setUp, code) => {
    const { deps, slack, sim, tracked } = unit();
    await setUp(sim);
    const result = await startJob(deps, input);
    expect(result).toMatchObject({ ok: false, refusal: { code: 'service', failed: { failure: { code } } } });
    expect(slack.callsTo('chat.delete')).toHaveLength(1);
    // The root, the bot's one message, is gone from the conversation.
    expect(slack.messages.filter((m) => m.bot_id)).toEqual([]);
    expect(await used()).toBe(0);
    expect(tracked).toEqual([]);
  });

  it('withdraws the root message on a 429 but keeps the slot: the service counted the request', async () => {
    const { deps, slack } = unit();
    unit().sim.injectFault({ ...ON_CREATE, kind: 'rate-limit', retryAfterSec: 30 });
    const result = await startJob(deps, input);
    expect(result).toMatchObject({ refusal: { failed: { failure: { code: 'rate_limited', retryAfterMs: 30_000 } } } });
    expect(slack.callsTo('chat.delete')).toHaveLength(1);
    expect(await used()).toBe(1);
  });

  it('keeps the root message as "status unknown" when the service may have created the job (5xx)', async () => {
    const { deps, slack, tracked } = unit();
    unit().sim.injectFault({ ...ON_CREATE, kind: 'status', status: 503 });
    const result = await startJob(deps, input);
    expect(result).toMatchObject({ refusal: { code: 'service', failed: { failure: { ambiguous: true } } } });
    expect(slack.callsTo('chat.delete')).toEqual([]);
    expect(readable(slack.messages[0])).toContain('Status unknown: Mintlify answered with an error (HTTP 503)');
    expect(await used()).toBe(1);
    expect(tracked).toEqual([]);
  });

  // Slow (about 8 s): the binding is retried through the outage (store/retry.ts), whose waits cannot be shortened.
  it('says in the thread, for everyone, when the job runs but its thread cannot be bound', async () => {
    const { deps, slack, tracked } = unit();
    const down = storeDown();
    vi.spyOn(deps.store.jobs, 'create').mockImplementation(down.jobs.create);
    const result = await startJob(deps, input);
    expect(result).toEqual({ ok: false, refusal: { code: 'untracked' } });
    expect(created()).toHaveLength(1);
    const note = slack.messages.find((m) => m.thread_ts === slack.messages[0]?.ts);
    expect(note?.text).toContain("my storage is unavailable, so I can't post its result in this thread");
    expect(note?.text).toContain('>Document &lt;retries&gt;');
    expect(tracked).toEqual([]);
  }, 15_000);

  it('says in the thread when the job runs but the queue will not take its first poll, instead of going silent', async () => {
    const { deps, slack } = unit();
    const tracker = { track: async () => Promise.reject(new QueueUnavailableError('Connection is closed.')) };
    const result = await startJob({ ...deps, tracker }, input);
    expect(result).toEqual({ ok: false, refusal: { code: 'untracked' } });
    expect(created()).toHaveLength(1);
    const note = slack.messages.find((m) => m.thread_ts === slack.messages[0]?.ts);
    expect(note?.text).toContain("I can't post its result in this thread");
    expect(unit().logs.text()).toMatch(/"event":"queue\.unavailable".*"op":"agent\.track"/);
  });
});
