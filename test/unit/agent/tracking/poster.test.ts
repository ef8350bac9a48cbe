import { describe, expect, it, vi } from 'vitest';
import type { Outcome } from '../../../../src/agent/tracking/outcome.js';
import { deliverOutcome, tellRequester } from '../../../../src/agent/tracking/poster.js';
import type { JobRecord } from '../../../../src/store/jobs.js';
import type { SlackFault } from '../../../fakes/fake-slack-api.js';
import { CHANNEL_ID, USER_ID } from '../../../fixtures/slack.js';
import { type AgentUnit, boundJob, readable, useAgentUnit } from '../support.js';

const PR: Outcome = { kind: 'pull_request', prLink: 'https://github.com/acme/docs/pull/7', updated: false };

describe('deliverOutcome', () => {
  const unit = useAgentUnit();

  /** The outcome posts in the job's thread, as people see them. */
  const outcomes = (record: JobRecord) =>
    unit().slack.messages.filter(
      (m) =>
        m.thread_ts === record.threadTs &&
        (m.metadata as { event_type?: string })?.event_type === 'mintlify_agent_outcome',
    );
  const posts = () => unit().slack.callsTo('chat.postMessage').length;

  it('posts the round’s outcome in the job’s thread, tagged with the job and round', async () => {
    const { deps } = unit();
    const record = await boundJob(deps);
    expect(await deliverOutcome(deps, record, PR)).toEqual({ kind: 'posted', found: false });
    const [post] = outcomes(record);
    expect(readable(post)).toContain('The agent opened a pull request: <https://github.com/acme/docs/pull/7>');
    expect(post?.metadata).toEqual({
      event_type: 'mintlify_agent_outcome',
      event_payload: { project: 'proj_test', job_id: 'job_1', round: 0 },
    });
  });

  it('leaves the round to a peer that is posting it (busy), and posts it once', async () => {
    const { deps, slack } = unit();
    const record = await boundJob(deps);
    slack.fail('chat.postMessage', { delayMs: 200 });
    const first = deliverOutcome(deps, record, PR);
    await vi.waitFor(() => expect(posts()).toBe(2));
    expect(await deliverOutcome({ ...deps, instanceId: 'peer' }, record, PR)).toEqual({ kind: 'busy' });
    expect(await first).toEqual({ kind: 'posted', found: false });
    expect(outcomes(record)).toHaveLength(1);
  });

  it('posts nothing for a round a follow-up superseded', async () => {
    const { deps } = unit();
    const record = await boundJob(deps);
    await deps.store.jobs.startRound(record, deps.now());
    expect(await deliverOutcome(deps, record, PR)).toEqual({ kind: 'superseded' });
    expect(outcomes(record)).toEqual([]);
  });

  it('posts nothing for a round that already ended: its outcome is in the thread', async () => {
    const { deps } = unit();
    const record = await boundJob(deps);
    await deps.store.jobs.endRound(record, 0, 'no_changes');
    expect(await deliverOutcome(deps, record, PR)).toEqual({ kind: 'posted', found: true });
    expect(outcomes(record)).toEqual([]);
  });

  it('after a 5xx, finds the outcome Slack stored anyway in the thread and never posts it twice', async () => {
    const { deps, slack } = unit();
    const record = await boundJob(deps);
    slack.fail('chat.postMessage', { status: 500, afterStoring: true });
    expect(await deliverOutcome(deps, record, PR)).toEqual({ kind: 'retry', code: 'http_500' });
    expect(await deliverOutcome(deps, record, PR)).toEqual({ kind: 'posted', found: true });
    expect(outcomes(record)).toHaveLength(1);
    expect(posts()).toBe(2); // the root message and the one outcome post
  });

  it('after a 5xx in a thread of 40 replies a non-Marketplace app reads 15 a page, once a minute: finds the outcome in one read', async () => {
    const { deps, slack } = unit();
    // A thread people wrote in over the last hour; the job was started in it.
    const hourAgo = Date.now() - 3_600_000;
    const thread = slack.postAs(USER_ID, CHANNEL_ID, 'Where do we say how retries work?', { at: hourAgo });
    for (let i = 1; i <= 40; i++) {
      slack.postAs(USER_ID, CHANNEL_ID, `note ${i}`, { threadTs: thread.ts, at: hourAgo + i * 80_000 });
    }
    const record = await boundJob(deps, { threadTs: thread.ts });
    slack.rateLimits.enable({ conversations: 'non-marketplace' });
    slack.rateLimits.set('chat.postMessage', []); // the root and the outcome within a second: not this test's 429
    slack.fail('chat.postMessage', { status: 500, afterStoring: true });
    expect(await deliverOutcome(deps, record, PR)).toEqual({ kind: 'retry', code: 'http_500' });
    expect(await deliverOutcome(deps, record, PR)).toEqual({ kind: 'posted', found: true });
    expect(outcomes(record)).toHaveLength(1);
    const links = slack.messages.filter((m) => m.thread_ts === thread.ts && readable(m).includes(PR.prLink));
    expect(links).toHaveLength(1);
    expect(slack.rateLimits.report()['conversations.replies']).toMatchObject({ calls: 1, ratelimited: 0 });
  });

  /** Slack answers `refused`'s post with a 429 (Retry-After 1 s); `record` waits it out, then is delivered. */
  async function pastA429(deps: AgentUnit['deps'], refused: JobRecord, record: JobRecord) {
    unit().slack.fail('chat.postMessage', { status: 429, retryAfterSec: 1 });
    for (const job of [refused, record]) {
      expect(await deliverOutcome(deps, job, PR)).toMatchObject({ kind: 'retry', code: 'ratelimited' });
    }
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    return deliverOutcome(deps, record, PR);
  }

  it('after a 5xx, keeps looking in the thread first even when another job’s 429 makes it wait in between', async () => {
    const { deps, slack } = unit();
    const record = await boundJob(deps);
    const other = await boundJob(deps, { jobId: 'job_2' });
    slack.fail('chat.postMessage', { status: 500, afterStoring: true });
    expect(await deliverOutcome(deps, record, PR)).toEqual({ kind: 'retry', code: 'http_500' });
    expect(await pastA429(deps, other, record)).toEqual({ kind: 'posted', found: true });
    expect(outcomes(record)).toHaveLength(1);
  });

  it('after a 5xx with nothing stored, posts the outcome on the next attempt', async () => {
    const { deps, slack } = unit();
    const record = await boundJob(deps);
    slack.fail('chat.postMessage', { status: 503 });
    expect(await deliverOutcome(deps, record, PR)).toEqual({ kind: 'retry', code: 'http_503' });
    expect(await deliverOutcome(deps, record, PR)).toEqual({ kind: 'posted', found: false });
    expect(outcomes(record)).toHaveLength(1);
    expect(slack.callsTo('conversations.replies')).toHaveLength(1);
  });

  it('remembers a 429 for every instance: none posts until its Retry-After is over', async () => {
    const { deps, slack } = unit();
    const record = await boundJob(deps);
    const other = await boundJob(deps, { jobId: 'job_2' });
    slack.fail('chat.postMessage', { status: 429, retryAfterSec: 30 });
    expect(await deliverOutcome(deps, record, PR)).toEqual({
      kind: 'retry',
      code: 'ratelimited',
      retryAfterMs: 30_000,
    });
    const peer = await deliverOutcome({ ...deps, instanceId: 'peer' }, other, PR);
    expect(peer).toEqual({ kind: 'retry', code: 'ratelimited', retryAfterMs: expect.any(Number) });
    expect(peer.kind === 'retry' && peer.retryAfterMs).toBeGreaterThan(25_000);
    expect(posts()).toBe(3); // two root messages, one refused outcome post
    expect([...outcomes(record), ...outcomes(other)]).toEqual([]);
  });

  it('reads no thread after a 429 (Slack posted nothing): not while cooling down, not on the attempt after', async () => {
    const { deps, slack } = unit();
    const record = await boundJob(deps);
    expect(await pastA429(deps, record, record)).toEqual({ kind: 'posted', found: false });
    expect(outcomes(record)).toHaveLength(1);
    expect(slack.callsTo('conversations.replies')).toEqual([]);
  });

  it.each<[string, SlackFault, unknown]>([
    ['a refused token: retry slowly (an admin must act)', { error: 'token_revoked' }, { slow: true }],
    ['a missing scope: retry slowly', { error: 'missing_scope' }, { slow: true }],
    ['Slack’s own internal_error: retry', { error: 'internal_error' }, {}],
  ])('after %s', async (_case, fault, extra) => {
    const { deps, slack } = unit();
    const record = await boundJob(deps);
    slack.fail('chat.postMessage', fault);
    const code = 'error' in fault ? fault.error : '';
    expect(await deliverOutcome(deps, record, PR)).toEqual({ kind: 'retry', code, ...(extra as object) });
  });

  it.each(['is_archived', 'channel_not_found', 'invalid_blocks'])(
    'gives up for good when the thread can never take it (%s)',
    async (error) => {
      const { deps, slack } = unit();
      const record = await boundJob(deps);
      slack.fail('chat.postMessage', { error });
      expect(await deliverOutcome(deps, record, PR)).toEqual({ kind: 'final', code: error });
      expect(outcomes(record)).toEqual([]);
    },
  );
});

describe('tellRequester', () => {
  const unit = useAgentUnit();

  it('sends the requester the outcome in the bot’s DM, saying where it could not be posted and why', async () => {
    const { deps, slack } = unit();
    const record = await boundJob(deps);
    await tellRequester(deps, record, PR, 'is_archived');
    const [note] = slack.messages.filter((m) => m.channel === USER_ID);
    expect(note?.text).toContain(`I couldn't post the result of your Mintlify agent job in <#${CHANNEL_ID}>`);
    expect(note?.text).toContain('(Slack said `is_archived`)');
    expect(readable(note)).toContain('https://github.com/acme/docs/pull/7');
  });

  it('logs, never throws, when the DM cannot be sent either', async () => {
    const { deps, slack, logs } = unit();
    const record = await boundJob(deps);
    slack.fail('chat.postMessage', { error: 'user_not_found' });
    await expect(tellRequester(deps, record, PR, 'is_archived')).resolves.toBeUndefined();
    expect(logs.text()).toMatch(/"event":"slack\.reply_failed".*"slack_error":"user_not_found"/);
  });
});
