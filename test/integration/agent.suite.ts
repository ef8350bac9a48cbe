import { describe, expect, it } from 'vitest';
import { createQuota } from '../../src/agent/quota.js';
import type { SlackCall } from '../fakes/fake-slack-api.js';
import { CHANNEL_ID, messageEvent, threadReply, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import type { StoreKind } from '../support/redis.js';
import { type CommandOptions, settle } from '../support/steps.js';
import { eventually, TEST_API_KEY, TEST_PROJECT_ID } from '../support/test-app.js';

/** Jobs in these tests end only when a test ends them (sim.endJob), unless a test says otherwise. */
const LONG_JOB_MS = 60_000;

/** The suite, on one store (`agent.test.ts`) or with real worker processes (`agent.processes.test.ts`). */
export const TITLE = 'agent jobs in Slack ($label)';

export function agentJobs(store: StoreKind): void {
  const h = useHarness({ store, simulator: { jobDurationMs: LONG_JOB_MS }, boot: true });

  /** The service answers the next job creation (one POST) with `fault`. */
  const failNextCreate = (
    fault: { kind: 'status'; status: 401 | 502 } | { kind: 'rate-limit'; retryAfterSec?: number },
  ) => h.sim.injectFault({ ...fault, count: 1, match: { method: 'POST' } });

  /** Runs `/agent <prompt>` and reads its private answer, which echoes the prompt so it is not lost. */
  async function answerTo(prompt: string, options: CommandOptions = {}): Promise<SlackCall> {
    await h.command(`/agent ${prompt}`, options);
    const reply = await h.answer();
    expect(reply.args.text).toContain(`>${prompt}`);
    return reply;
  }

  it('starts a job: posts a root message with who asked and the prompt, then the job id and source', async () => {
    const { jobId, rootTs } = await h.startJob('Document the webhooks endpoint');
    const root = h.slack.callsTo('chat.postMessage')[0];
    expect(root?.args.channel).toBe(CHANNEL_ID);
    expect(JSON.stringify(root?.args.blocks)).toContain(`<@${USER_ID}> asked the Mintlify agent`);
    expect(JSON.stringify(root?.args.blocks)).toContain('>Document the webhooks endpoint');
    const update = h.slack.callsTo('chat.update').find((c) => c.args.ts === rootTs);
    expect(JSON.stringify(update?.args.blocks)).toContain('acme/docs@mintlify/agent-');
    expect(h.sim.requests.filter((r) => r.path === `/v2/agent/${TEST_PROJECT_ID}/job`)).toHaveLength(1);
    expect(h.sim.requests[0]?.body).toEqual({ prompt: 'Document the webhooks endpoint' });
    expect(await h.app.app.deps.store.jobs.forThread([TEST_PROJECT_ID], CHANNEL_ID, rootTs)).toEqual({
      project: TEST_PROJECT_ID,
      jobId,
    });
  });

  it('posts the pull request exactly once when the job completes, and marks the root message', async () => {
    const { jobId, rootTs } = await h.startJob('Document the webhooks endpoint');
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/42' });
    await eventually(() => h.threadPosts(rootTs).length === 1, 5_000, 'outcome post');
    await settle(); // further polls must not post again
    const posts = h.threadPosts(rootTs);
    expect(posts).toHaveLength(1);
    expect(posts[0]?.args.text).toContain('https://github.com/acme/docs/pull/42');
    expect(JSON.stringify(posts[0]?.args.blocks)).toContain('"url":"https://github.com/acme/docs/pull/42"');
    await eventually(() =>
      h.slack.callsTo('chat.update').some((c) => JSON.stringify(c.args.blocks).includes('Pull request ready')),
    );
  });

  // The documents bound no `prLink` (a `uri` string); Slack takes 3,000 characters in a section's text or a button's url.
  it.each([3_000, 5_000])(
    'posts a pull request whose link is %i characters long once, with a working link',
    async (chars) => {
      const job = await h.startJob('Document the long branch');
      const prLink = `https://github.com/acme/docs/pull/9?q=${'q'.repeat(chars - 38)}`;
      h.sim.endJob(job.jobId, { status: 'completed', prLink });
      await eventually(
        async () =>
          (await h.app.app.deps.store.jobs.get({ project: TEST_PROJECT_ID, ...job }))?.ended === 'pull_request',
        5_000,
        'the round ended with its pull request posted',
      );
      const posted = h.slack.messages.filter((m) => m.thread_ts === job.rootTs);
      expect(posted).toHaveLength(1);
      expect(JSON.stringify(posted[0]?.blocks)).toContain(`"url":"${prLink}"`);
    },
  );

  it.each([
    [{ status: 'completed' as const, prLink: null }, 'without changing any files'],
    [{ status: 'failed' as const }, 'Reply in this thread'],
    [{ status: 'archived' as const }, 'archived'],
  ])('reports %o in the thread', async (outcome, words) => {
    const { jobId, rootTs } = await h.startJob('Document the webhooks endpoint');
    h.sim.endJob(jobId, outcome);
    const [post] = await eventually(() => h.threadPosts(rootTs).length && h.threadPosts(rootTs));
    expect(post?.args.text).toContain(words);
  });

  it('says so and stops tracking when the service no longer knows the job (404)', async () => {
    const { jobId, rootTs } = await h.startJob('Document the webhooks endpoint');
    h.sim.deleteJob(jobId);
    const [post] = await eventually(() => h.threadPosts(rootTs).length && h.threadPosts(rootTs));
    expect(post?.args.text).toContain('no longer exists');
    const gets = () => h.sim.requests.filter((r) => r.method === 'GET').length;
    const seen = gets();
    await settle();
    expect(gets()).toBe(seen);
  });

  it('keeps tracking through a burst of 5xx on GET and still posts the outcome once', async () => {
    const { jobId, rootTs } = await h.startJob('Document the webhooks endpoint');
    h.sim.injectFault({ kind: 'status', status: 503, count: 12, match: { method: 'GET' } });
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/7' });
    await eventually(() => h.threadPosts(rootTs).length === 1, 10_000, 'outcome after 5xx burst');
    await settle();
    expect(h.threadPosts(rootTs)).toHaveLength(1);
  });

  it.each(['', '   ', 'help', 'HELP'])(
    'answers %j with private usage and sends nothing to the service',
    async (text) => {
      const { ack } = await h.command(`/agent ${text}`);
      expect(ack?.response_type).toBe('ephemeral');
      expect(ack?.text).toContain('/agent &lt;instruction&gt;');
      expect(h.sim.requests).toHaveLength(0);
      expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
    },
  );

  it('tells the user to invite the bot when it is not in the channel, echoing the prompt, and starts nothing', async () => {
    h.slack.fail('chat.postMessage', { error: 'not_in_channel' });
    const reply = await answerTo('Fix the broken links');
    expect(reply.args.response_type).toBe('ephemeral');
    expect(reply.args.text).toContain('/invite');
    expect(h.sim.requests).toHaveLength(0);
  });

  it('in a direct message it cannot post in, points to the Messages tab instead of /invite', async () => {
    h.slack.fail('chat.postMessage', { error: 'channel_not_found' });
    const reply = await answerTo('Fix the broken links', { channel: 'D123ALICEBOB' });
    expect(reply.args.text).toContain('Messages tab');
    expect(h.sim.requests).toHaveLength(0);
  });

  // Slack's chat.postMessage reference: a read-only channel takes no post from the app, a thread-only channel no
  // top-level one. Trying again cannot help, so the person hears why and where to run it instead.
  it.each([
    ['read_only', 'C0ANNOUNCE'],
    ['thread_only', 'C0THREADS'],
  ] as const)(
    'in a channel whose posting is restricted (%s) says so, never "try again", and starts nothing',
    async (posting, channel) => {
      h.slack.workspace.channels.push({ id: channel, name: 'announcements', posting });
      const reply = await answerTo('Fix the broken links', { channel });
      expect(reply.args.text).toContain('does not let me post');
      expect(reply.args.text).not.toMatch(/try again/i);
      expect(h.sim.requests).toHaveLength(0);
    },
  );

  it('where Slack\'s administrators suspended the bot\'s posting (ekm_access_denied) says so, never "try again", and starts nothing', async () => {
    h.slack.fail('chat.postMessage', { error: 'ekm_access_denied' }, 1);
    const reply = await answerTo('Fix the broken links');
    expect(reply.args.text).toContain('administrators have suspended');
    expect(reply.args.text).toContain('Fix the broken links');
    expect(reply.args.text).not.toMatch(/try again/i);
    expect(h.sim.requests).toHaveLength(0);
  });

  it('on 429 from the service tells the user when to retry, echoes the prompt and withdraws the root message', async () => {
    failNextCreate({ kind: 'rate-limit', retryAfterSec: 1800 });
    const reply = await answerTo('Rewrite the auth guide');
    expect(reply.args.text).toContain('next slot opens in 30 minutes');
    expect(h.slack.callsTo('chat.delete')).toHaveLength(1);
    // Gone from the channel: no root left saying it started.
    const rootTs = String(h.slack.callsTo('chat.delete')[0]?.args.ts);
    expect(h.slack.tenant().message(String(h.slack.callsTo('chat.delete')[0]?.args.channel), rootTs)).toBeUndefined();
  });

  it('on a 429 that names no wait (the documents give none) says so, never an invented time', async () => {
    failNextCreate({ kind: 'rate-limit' });
    const reply = await answerTo('Rewrite the auth guide');
    expect(reply.args.text).toContain('Mintlify did not say when the next slot opens');
    expect(reply.args.text).not.toContain('in 1 minute');
    expect(reply.args.text).toContain('>Rewrite the auth guide');
  });

  it('refuses early at the hourly limit, saying when the next slot opens, without calling the service', async () => {
    const quota = createQuota(h.app.app.deps.store);
    for (let i = 0; i < 100; i++) await quota.take(TEST_PROJECT_ID, 'create');
    const reply = await answerTo('One more job');
    expect(reply.args.text).toMatch(/next slot opens in 60 minutes/);
    expect(h.sim.requests).toHaveLength(0);
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
  });

  it('on 5xx from the service keeps the root as "status unknown" (the job may exist) and says so, echoing the prompt', async () => {
    failNextCreate({ kind: 'status', status: 502 });
    const reply = await answerTo('Add a changelog entry');
    expect(reply.args.text).toContain('cannot tell whether the job started');
    expect(h.sim.requests.filter((r) => r.method === 'POST')).toHaveLength(1); // never retried
    expect(h.slack.callsTo('chat.delete')).toHaveLength(0);
    const rootTs = h.slack.messages.find((m) => !m.thread_ts)?.ts;
    const updates = h.slack.callsTo('chat.update').filter((c) => c.args.ts === rootTs);
    expect(updates).toHaveLength(1);
    expect(JSON.stringify(updates[0]?.args.blocks)).toContain(
      'Status unknown: Mintlify answered with an error (HTTP 502)',
    );
  });

  it('on 201 naming no job (the document requires no field) says the job started but cannot be followed', async () => {
    h.sim.injectFault({ kind: 'job', keep: [], count: 1, match: { method: 'POST' } });
    const reply = await answerTo('Add a changelog entry');
    expect(reply.args.text).toContain('Mintlify started the job, but its answer did not say which job');
    expect(reply.args.text).not.toContain('cannot tell whether');
    expect(h.sim.counts().creates).toBe(1);
    const rootTs = h.slack.messages.find((m) => !m.thread_ts)?.ts;
    const update = h.slack.callsTo('chat.update').find((c) => c.args.ts === rootTs);
    expect(JSON.stringify(update?.args.blocks)).toContain('Started, but Mintlify did not say which job');
  });

  it('when the service cannot be reached at all, withdraws the root and says nothing was started', async () => {
    // Port 2: nothing listens there and no suite's server is given one below 1024 (a closed simulator's port could be
    // reused by a server of a suite running alongside, which then answered this create); not one fetch blocks (9).
    await h.restart({ mintlifyUrl: 'http://127.0.0.1:2' });
    const reply = await answerTo('Add a changelog entry');
    expect(reply.args.text).toContain('could not reach Mintlify, so nothing was started');
    expect(h.slack.callsTo('chat.delete')).toHaveLength(1);
  });

  it('on 401 tells the user the app is misconfigured and logs it for the admin, never the key', async () => {
    failNextCreate({ kind: 'status', status: 401 });
    const reply = await answerTo('Anything');
    expect(reply.args.text).toContain('misconfigured');
    expect(h.app.logs()).toContain('check MINTLIFY_API_KEY');
    expect(JSON.stringify(h.slack.calls)).not.toContain(TEST_API_KEY);
    expect(h.app.logs()).not.toContain(TEST_API_KEY);
  });

  it('on 404 says Mintlify does not know the project, never that a follow-up was lost, and logs it for the admin', async () => {
    h.sim.injectFault({ kind: 'status', status: 404, error: 'Project not found', count: 1, match: { method: 'POST' } });
    const reply = await answerTo('Document the webhooks endpoint');
    expect(reply.args.text).toContain(`Mintlify does not know project \`${TEST_PROJECT_ID}\``);
    expect(reply.args.text).not.toContain('follow-up');
    expect(h.app.logs()).toMatch(/"level":"error","event":"mintlify.create_job".*"outcome":"not_found"/);
    expect(h.slack.callsTo('chat.delete')).toHaveLength(1);
  });

  it('on 400 with a very long error still echoes the whole instruction, within Slack’s 40,000 characters', async () => {
    h.sim.injectFault({ kind: 'status', status: 400, error: 'x'.repeat(45_000), count: 1, match: { method: 'POST' } });
    const reply = await answerTo('Document the webhooks endpoint please');
    expect(String(reply.args.text).length).toBeLessThanOrEqual(40_000);
    expect(reply.args.text).toMatch(/Your instruction, to copy and retry:\n>Document the webhooks endpoint please$/);
  });

  it('keeps the root up to date when the service names a model too long to show (the contract sets no limit)', async () => {
    const model = 'm'.repeat(3_100);
    h.sim.injectFault({ kind: 'job', set: { model }, count: 1, match: { method: 'POST' } });
    h.sim.injectFault({ kind: 'job', set: { model }, count: Number.POSITIVE_INFINITY, match: { method: 'GET' } });
    const { jobId, rootTs } = await h.startJob('Document the webhooks endpoint');
    // What Slack kept (a refused update is recorded as a call too).
    const root = () => JSON.stringify(h.slack.messages.find((m) => m.ts === rootTs)?.blocks);
    await eventually(() => root().includes(`${'m'.repeat(79)}…`), 5_000, 'the root naming the job');
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/42' });
    await eventually(() => root().includes('Pull request ready'), 5_000, 'the root marked');
  });

  describe('thread replies', () => {
    it('sends a reply as exactly one follow-up, with 👀 then ✅, even when Slack redelivers it', async () => {
      const { rootTs } = await h.startJob('Document the webhooks endpoint');
      const event = threadReply(rootTs, { text: 'Also document the retry policy' });
      await h.deliver(event);
      await eventually(() => h.slack.callsTo('reactions.add').some((c) => c.args.name === 'white_check_mark'));
      await h.deliver(event, { retry: 1 });
      // Same message, new event id (Slack can do this too): deduplicated by client_msg_id.
      await h.deliver({ ...event, event_id: 'EvOTHER' });
      await settle();
      expect(h.followUps()).toHaveLength(1);
      expect(h.followUps()[0]?.body).toEqual({ prompt: 'Also document the retry policy' });
      expect(h.slack.callsTo('reactions.add').map((c) => c.args.name)).toEqual(['eyes', 'white_check_mark']);
    });

    it('ignores bot messages, edits, deletions, the root message and unrelated threads', async () => {
      const { rootTs } = await h.startJob('Document the webhooks endpoint');
      const events = [
        threadReply(rootTs, { bot_id: 'B999', user: undefined }),
        threadReply(rootTs, { subtype: 'bot_message', bot_id: 'B999' }),
        threadReply(rootTs, { subtype: 'message_changed' }),
        threadReply(rootTs, { subtype: 'message_deleted' }),
        messageEvent({ ts: rootTs, thread_ts: rootTs }),
        messageEvent({ text: 'not in a thread' }),
        threadReply('1690000000.000001'),
      ];
      await h.deliver(events);
      await settle();
      expect(h.followUps()).toHaveLength(0);
      expect(h.slack.callsTo('reactions.add')).toHaveLength(0);
    });

    it('after a follow-up ending on the same pull request, says the PR was updated', async () => {
      const { jobId, rootTs } = await h.startJob('Document the webhooks endpoint');
      h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/9' });
      await eventually(() => h.threadPosts(rootTs).length === 1);
      await h.deliver(threadReply(rootTs, { text: 'Use a table instead' }));
      await eventually(() => h.followUps().length === 1);
      await settle(150);
      h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/9' });
      await eventually(() => h.threadPosts(rootTs).length === 2, 5_000, 'second outcome');
      expect(h.threadPosts(rootTs)[1]?.args.text).toContain('updated the pull request');
    });

    it('answers a follow-up refused by the service privately, with the text echoed', async () => {
      const { jobId, rootTs } = await h.startJob('Document the webhooks endpoint');
      h.sim.deleteJob(jobId);
      await h.deliver(threadReply(rootTs, { text: 'Please also fix typos' }));
      const [eph] = await eventually(
        () => h.slack.callsTo('chat.postEphemeral').length && h.slack.callsTo('chat.postEphemeral'),
      );
      expect(eph?.args.thread_ts).toBe(rootTs);
      expect(eph?.args.text).toContain('>Please also fix typos');
      expect(h.slack.callsTo('reactions.add').map((c) => c.args.name)).toContain('x');
    });
  });

  describe('allow-lists', () => {
    it('refuses users outside AGENT_ALLOWED_USERS privately, with nothing sent to the service', async () => {
      await h.restart({ env: { AGENT_ALLOWED_USERS: 'U999BOSS' } });
      const { ack } = await h.command('/agent Sneaky <Note> change');
      expect(ack?.response_type).toBe('ephemeral');
      expect(ack?.text).toContain('not allowed');
      expect(ack?.text).toContain('>Sneaky &lt;Note&gt; change'); // echoed, so it is not lost
      expect(h.sim.requests).toHaveLength(0);
    });

    it('refuses channels outside AGENT_ALLOWED_CHANNELS and allows listed ones', async () => {
      await h.restart({ env: { AGENT_ALLOWED_CHANNELS: CHANNEL_ID, AGENT_ALLOWED_USERS: USER_ID } });
      const { ack: refused } = await h.command('/agent Elsewhere', { channel: 'C999OTHER' });
      expect(refused?.text).toContain('not allowed');
      await h.startJob('Here');
      expect(h.sim.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    });

    it('refuses thread replies from users outside the list', async () => {
      await h.restart({ env: { AGENT_ALLOWED_USERS: USER_ID } });
      const { rootTs } = await h.startJob('Document the webhooks endpoint');
      await h.deliver(threadReply(rootTs, { user: 'U999EVE' }));
      await eventually(() => h.slack.callsTo('chat.postEphemeral').length);
      expect(h.followUps()).toHaveLength(0);
    });
  });

  describe('safe text', () => {
    it('escapes the prompt and neutralises broadcast mentions in the root message', async () => {
      await h.startJob('Ping @channel & <!subteam^S123|@docs> about <script>');
      const root = JSON.stringify(h.slack.callsTo('chat.postMessage')[0]?.args.blocks);
      expect(root).not.toContain('<!channel>');
      expect(root).not.toContain('<!subteam');
      expect(root).toContain('@\u200Bchannel &amp; &lt;!subteam^S123|@docs&gt;');
      expect(root).toContain('&lt;script&gt;');
    });

    it("sends the prompt to the agent as typed, not in Slack's wire encoding, and echoes it escaped once", async () => {
      await h.startJob('Fix the <Note> callout & link');
      expect(h.sim.requests[0]?.body).toEqual({ prompt: 'Fix the <Note> callout & link' });
      const root = JSON.stringify(h.slack.callsTo('chat.postMessage')[0]);
      expect(root).toContain('Fix the &lt;Note&gt; callout &amp; link');
      expect(root).not.toContain('&amp;lt;');
    });

    it('decodes a thread reply: entities, links and people by display name', async () => {
      const { rootTs } = await h.startJob('Document the webhooks endpoint');
      h.slack.users.delete('U345CAROL'); // left the workspace after being mentioned: users.info no longer knows her
      await h.deliver(threadReply(rootTs, { text: 'Also <Tip> & [a](https://a.example) for @bob, ask @carol' }));
      await eventually(() => h.followUps()[0]);
      expect(h.followUps()[0]?.body).toEqual({
        prompt: 'Also <Tip> & a (https://a.example) for @Bob Lee, ask @U345CAROL',
      });
    });

    it('shows a prLink as a link only when it is https', async () => {
      const { jobId, rootTs } = await h.startJob('Document the webhooks endpoint');
      h.sim.endJob(jobId, { status: 'completed', prLink: 'javascript:alert(1)' });
      const [post] = await eventually(() => h.threadPosts(rootTs).length && h.threadPosts(rootTs));
      expect(JSON.stringify(post?.args.blocks)).not.toContain('"url"');
      expect(JSON.stringify(post?.args.blocks)).not.toContain('<javascript:');
    });

    it('never puts the admin key in anything it posts or logs', async () => {
      const { jobId, rootTs } = await h.startJob('Document the webhooks endpoint');
      h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/1' });
      await eventually(() => h.app.logs().includes('poller.outcome_posted'));
      expect(h.threadPosts(rootTs)).toHaveLength(1);
      expect(JSON.stringify(h.slack.calls)).not.toContain(TEST_API_KEY);
      expect(h.app.logs()).not.toContain(TEST_API_KEY);
    });
  });

  it('delivers the outcome once after Slack rate-limits and fails the post', async () => {
    const { jobId, rootTs } = await h.startJob('Document the webhooks endpoint');
    h.slack.fail('chat.postMessage', { status: 429, retryAfterSec: 1 });
    h.slack.fail('chat.postMessage', { error: 'internal_error' });
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/5' });
    await eventually(
      () => h.slack.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === rootTs).length >= 3,
      10_000,
      'posts after rate limit',
    );
    await settle();
    const delivered = h.threadPosts(rootTs).length - 2; // two attempts were refused by the fake
    expect(delivered).toBe(1);
  });

  it('gives up tracking after JOB_MAX_AGE_MS with a message in the thread', async () => {
    await h.restart({ env: { JOB_MAX_AGE_MS: '300' } });
    const { rootTs } = await h.startJob('Document the webhooks endpoint');
    const [post] = await eventually(() => h.threadPosts(rootTs).length && h.threadPosts(rootTs));
    expect(post?.args.text).toContain('stopped tracking');
  });
}
