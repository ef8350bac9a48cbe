import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createQuota } from '../../src/agent/quota.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/fake-slack-api.js';
import { postForm, postJson } from '../fakes/signed-request.js';
import { CHANNEL_ID, messageEvent, slashCommand, threadReply, USER_ID } from '../fixtures/slack.js';
import { dropNamespace, storeKinds, testNamespace } from '../support/redis.js';
import { eventually, startTestApp, TEST_API_KEY, TEST_PROJECT_ID, type TestApp } from '../support/test-app.js';

/** Jobs in these tests end only when a test ends them (sim.endJob), unless a test says otherwise. */
const LONG_JOB_MS = 60_000;

describe.each(storeKinds)('agent jobs in Slack ($kind store)', ({ kind, redisUrl, available }) => {
  let slack: FakeSlackApi;
  let sim: Simulator;
  let app: TestApp;
  let namespace: string;

  async function boot(env: Record<string, string> = {}) {
    app = await startTestApp(slack, sim.url, { redisUrl, namespace, env });
  }

  beforeEach(async (context) => {
    if (!available) context.skip();
    namespace = testNamespace();
    slack = await startFakeSlackApi();
    sim = await startSimulator({ jobDurationMs: LONG_JOB_MS });
  });

  afterEach(async () => {
    await app?.stop();
    await sim?.close();
    await slack?.close();
    if (kind === 'redis' && available) await dropNamespace(namespace);
  });

  async function agent(text: string, overrides: Record<string, string> = {}) {
    const res = await postForm(app.url, slashCommand({ text, response_url: slack.responseUrl('cmd'), ...overrides }));
    expect(res.status).toBe(200);
    const body = await res.text();
    return body ? JSON.parse(body) : undefined;
  }

  /** Runs `/agent` and waits until the root message carries the job id; returns the job id and root ts. */
  async function startedJob(text = 'Document the webhooks endpoint') {
    await agent(text);
    const update = await eventually(
      () => slack.callsTo('chat.update').find((c) => JSON.stringify(c.args.blocks).includes('job `')),
      5_000,
      'root message update',
    );
    const job = sim.requests.find((r) => r.method === 'POST' && r.path.endsWith('/job'));
    const jobId = [...JSON.stringify(update.args.blocks).matchAll(/job `([^`]+)`/g)][0]?.[1] as string;
    expect(job).toBeDefined();
    return { jobId, rootTs: update.args.ts as string };
  }

  const threadPosts = (rootTs: string) => slack.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === rootTs);
  const responses = () => slack.callsTo('response_url:cmd');
  const followUpCalls = () => sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/message'));
  const settle = (ms = 400) => new Promise((r) => setTimeout(r, ms));

  it('starts a job: posts a root message with who asked and the prompt, then the job id and source', async () => {
    await boot();
    const { jobId, rootTs } = await startedJob('Document the webhooks endpoint');
    const root = slack.callsTo('chat.postMessage')[0];
    expect(root?.args.channel).toBe(CHANNEL_ID);
    expect(JSON.stringify(root?.args.blocks)).toContain(`<@${USER_ID}> asked the Mintlify agent`);
    expect(JSON.stringify(root?.args.blocks)).toContain('>Document the webhooks endpoint');
    const update = slack.callsTo('chat.update').find((c) => c.args.ts === rootTs);
    expect(JSON.stringify(update?.args.blocks)).toContain('acme/docs@mintlify/agent-');
    expect(sim.requests.filter((r) => r.path === `/v2/agent/${TEST_PROJECT_ID}/job`)).toHaveLength(1);
    expect(sim.requests[0]?.body).toEqual({ prompt: 'Document the webhooks endpoint' });
    expect(await app.app.deps.store.jobs.forThread([TEST_PROJECT_ID], CHANNEL_ID, rootTs)).toEqual({
      project: TEST_PROJECT_ID,
      jobId,
    });
  });

  it('posts the pull request exactly once when the job completes, and marks the root message', async () => {
    await boot();
    const { jobId, rootTs } = await startedJob();
    sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/42' });
    await eventually(() => threadPosts(rootTs).length === 1, 5_000, 'outcome post');
    await settle(); // further polls must not post again
    const posts = threadPosts(rootTs);
    expect(posts).toHaveLength(1);
    expect(posts[0]?.args.text).toContain('https://github.com/acme/docs/pull/42');
    expect(JSON.stringify(posts[0]?.args.blocks)).toContain('"url":"https://github.com/acme/docs/pull/42"');
    await eventually(() =>
      slack.callsTo('chat.update').some((c) => JSON.stringify(c.args.blocks).includes('Pull request ready')),
    );
  });

  it.each([
    [{ status: 'completed' as const, prLink: null }, 'without changing any files'],
    [{ status: 'failed' as const }, 'Reply in this thread'],
    [{ status: 'archived' as const }, 'archived'],
  ])('reports %o in the thread', async (outcome, words) => {
    await boot();
    const { jobId, rootTs } = await startedJob();
    sim.endJob(jobId, outcome);
    const [post] = await eventually(() => threadPosts(rootTs).length && threadPosts(rootTs));
    expect(post?.args.text).toContain(words);
  });

  it('says so and stops tracking when the service no longer knows the job (404)', async () => {
    await boot();
    const { jobId, rootTs } = await startedJob();
    sim.deleteJob(jobId);
    const [post] = await eventually(() => threadPosts(rootTs).length && threadPosts(rootTs));
    expect(post?.args.text).toContain('no longer exists');
    const gets = () => sim.requests.filter((r) => r.method === 'GET').length;
    const seen = gets();
    await settle();
    expect(gets()).toBe(seen);
  });

  it('keeps tracking through a burst of 5xx on GET and still posts the outcome once', async () => {
    await boot();
    const { jobId, rootTs } = await startedJob();
    sim.injectFault({ kind: 'status', status: 503, count: 12, match: { method: 'GET' } });
    sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/7' });
    await eventually(() => threadPosts(rootTs).length === 1, 10_000, 'outcome after 5xx burst');
    await settle();
    expect(threadPosts(rootTs)).toHaveLength(1);
  });

  it.each(['', '   ', 'help', 'HELP'])(
    'answers %j with private usage and sends nothing to the service',
    async (text) => {
      await boot();
      const body = await agent(text);
      expect(body.response_type).toBe('ephemeral');
      expect(body.text).toContain('/agent &lt;instruction&gt;');
      expect(sim.requests).toHaveLength(0);
      expect(slack.callsTo('chat.postMessage')).toHaveLength(0);
    },
  );

  it('tells the user to invite the bot when it is not in the channel, echoing the prompt, and starts nothing', async () => {
    await boot();
    slack.fail('chat.postMessage', { error: 'not_in_channel' });
    await agent('Fix the broken links');
    const [reply] = await eventually(() => responses().length && responses());
    expect(reply?.args.response_type).toBe('ephemeral');
    expect(reply?.args.text).toContain('/invite');
    expect(reply?.args.text).toContain('>Fix the broken links');
    expect(sim.requests).toHaveLength(0);
  });

  it('in a direct message it cannot post in, points to the Messages tab instead of /invite', async () => {
    await boot();
    slack.fail('chat.postMessage', { error: 'channel_not_found' });
    await agent('Fix the broken links', { channel_id: 'D123ALICEBOB' });
    const [reply] = await eventually(() => responses().length && responses());
    expect(reply?.args.text).toContain('Messages tab');
    expect(reply?.args.text).toContain('>Fix the broken links');
    expect(sim.requests).toHaveLength(0);
  });

  it('on 429 from the service tells the user when to retry, echoes the prompt and withdraws the root message', async () => {
    await boot();
    sim.injectFault({ kind: 'rate-limit', retryAfterSec: 1800, count: 1, match: { method: 'POST' } });
    await agent('Rewrite the auth guide');
    const [reply] = await eventually(() => responses().length && responses());
    expect(reply?.args.text).toContain('next slot opens in 30 minutes');
    expect(reply?.args.text).toContain('>Rewrite the auth guide');
    expect(slack.callsTo('chat.delete')).toHaveLength(1);
  });

  it('refuses early at the hourly limit, saying when the next slot opens, without calling the service', async () => {
    await boot();
    const quota = createQuota(app.app.deps.store);
    for (let i = 0; i < 100; i++) await quota.take(TEST_PROJECT_ID, 'create');
    await agent('One more job');
    const [reply] = await eventually(() => responses().length && responses());
    expect(reply?.args.text).toMatch(/next slot opens in 60 minutes/);
    expect(reply?.args.text).toContain('>One more job');
    expect(sim.requests).toHaveLength(0);
    expect(slack.callsTo('chat.postMessage')).toHaveLength(0);
  });

  it('on 5xx from the service keeps the root as "status unknown" (the job may exist) and says so, echoing the prompt', async () => {
    await boot();
    sim.injectFault({ kind: 'status', status: 502, count: 1, match: { method: 'POST' } });
    await agent('Add a changelog entry');
    const [reply] = await eventually(() => responses().length && responses());
    expect(reply?.args.text).toContain('cannot tell whether the job started');
    expect(reply?.args.text).toContain('>Add a changelog entry');
    expect(sim.requests.filter((r) => r.method === 'POST')).toHaveLength(1); // never retried
    expect(slack.callsTo('chat.delete')).toHaveLength(0);
    const rootTs = slack.messages.find((m) => !m.thread_ts)?.ts;
    const updates = slack.callsTo('chat.update').filter((c) => c.args.ts === rootTs);
    expect(updates).toHaveLength(1);
    expect(JSON.stringify(updates[0]?.args.blocks)).toContain('Status unknown');
  });

  it('when the service cannot be reached at all, withdraws the root and says nothing was started', async () => {
    const url = sim.url;
    await sim.close();
    sim = await startSimulator({ jobDurationMs: LONG_JOB_MS });
    app = await startTestApp(slack, url, { redisUrl, namespace });
    await agent('Add a changelog entry');
    const [reply] = await eventually(() => responses().length && responses());
    expect(reply?.args.text).toContain('could not reach Mintlify, so nothing was started');
    expect(reply?.args.text).toContain('>Add a changelog entry');
    expect(slack.callsTo('chat.delete')).toHaveLength(1);
  });

  it('on 401 tells the user the app is misconfigured and logs it for the admin, never the key', async () => {
    await boot();
    sim.injectFault({ kind: 'status', status: 401, count: 1, match: { method: 'POST' } });
    await agent('Anything');
    const [reply] = await eventually(() => responses().length && responses());
    expect(reply?.args.text).toContain('misconfigured');
    expect(reply?.args.text).toContain('>Anything');
    expect(app.logs()).toContain('check MINTLIFY_API_KEY');
    expect(JSON.stringify(slack.calls)).not.toContain(TEST_API_KEY);
    expect(app.logs()).not.toContain(TEST_API_KEY);
  });

  describe('thread replies', () => {
    it('sends a reply as exactly one follow-up, with 👀 then ✅, even when Slack redelivers it', async () => {
      await boot();
      const { rootTs } = await startedJob();
      const event = threadReply(rootTs, { text: 'Also document the retry policy' });
      expect((await postJson(app.url, event)).status).toBe(200);
      await eventually(() => slack.callsTo('reactions.add').some((c) => c.args.name === 'white_check_mark'));
      const retry = await postJson(app.url, event, {
        headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' },
      });
      expect(retry.status).toBe(200);
      // Same message, new event id (Slack can do this too): deduplicated by client_msg_id.
      await postJson(app.url, { ...event, event_id: 'EvOTHER' });
      await settle();
      expect(followUpCalls()).toHaveLength(1);
      expect(followUpCalls()[0]?.body).toEqual({ prompt: 'Also document the retry policy' });
      expect(slack.callsTo('reactions.add').map((c) => c.args.name)).toEqual(['eyes', 'white_check_mark']);
    });

    it('ignores bot messages, edits, deletions, the root message and unrelated threads', async () => {
      await boot();
      const { rootTs } = await startedJob();
      const events = [
        threadReply(rootTs, { bot_id: 'B999', user: undefined }),
        threadReply(rootTs, { subtype: 'bot_message', bot_id: 'B999' }),
        threadReply(rootTs, { subtype: 'message_changed' }),
        threadReply(rootTs, { subtype: 'message_deleted' }),
        messageEvent({ ts: rootTs, thread_ts: rootTs }),
        messageEvent({ text: 'not in a thread' }),
        threadReply('1690000000.000001'),
      ];
      for (const event of events) expect((await postJson(app.url, event)).status).toBe(200);
      await settle();
      expect(followUpCalls()).toHaveLength(0);
      expect(slack.callsTo('reactions.add')).toHaveLength(0);
    });

    it('after a follow-up ending on the same pull request, says the PR was updated', async () => {
      await boot();
      const { jobId, rootTs } = await startedJob();
      sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/9' });
      await eventually(() => threadPosts(rootTs).length === 1);
      await postJson(app.url, threadReply(rootTs, { text: 'Use a table instead' }));
      await eventually(() => followUpCalls().length === 1);
      await settle(150);
      sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/9' });
      await eventually(() => threadPosts(rootTs).length === 2, 5_000, 'second outcome');
      expect(threadPosts(rootTs)[1]?.args.text).toContain('updated the pull request');
    });

    it('answers a follow-up refused by the service privately, with the text echoed', async () => {
      await boot();
      const { jobId, rootTs } = await startedJob();
      sim.deleteJob(jobId);
      await postJson(app.url, threadReply(rootTs, { text: 'Please also fix typos' }));
      const [eph] = await eventually(
        () => slack.callsTo('chat.postEphemeral').length && slack.callsTo('chat.postEphemeral'),
      );
      expect(eph?.args.thread_ts).toBe(rootTs);
      expect(eph?.args.text).toContain('>Please also fix typos');
      expect(slack.callsTo('reactions.add').map((c) => c.args.name)).toContain('x');
    });
  });

  describe('allow-lists', () => {
    it('refuses users outside AGENT_ALLOWED_USERS privately, with nothing sent to the service', async () => {
      await boot({ AGENT_ALLOWED_USERS: 'U999BOSS' });
      const body = await agent('Sneaky <Note> change');
      expect(body.response_type).toBe('ephemeral');
      expect(body.text).toContain('not allowed');
      expect(body.text).toContain('>Sneaky &lt;Note&gt; change'); // echoed, so it is not lost
      expect(sim.requests).toHaveLength(0);
    });

    it('refuses channels outside AGENT_ALLOWED_CHANNELS and allows listed ones', async () => {
      await boot({ AGENT_ALLOWED_CHANNELS: CHANNEL_ID, AGENT_ALLOWED_USERS: USER_ID });
      const refused = await agent('Elsewhere', { channel_id: 'C999OTHER' });
      expect(refused.text).toContain('not allowed');
      await startedJob('Here');
      expect(sim.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    });

    it('refuses thread replies from users outside the list', async () => {
      await boot({ AGENT_ALLOWED_USERS: USER_ID });
      const { rootTs } = await startedJob();
      await postJson(app.url, threadReply(rootTs, { user: 'U999EVE' }));
      await eventually(() => slack.callsTo('chat.postEphemeral').length);
      expect(followUpCalls()).toHaveLength(0);
    });
  });

  describe('safe text', () => {
    it('escapes the prompt and neutralises broadcast mentions in the root message', async () => {
      await boot();
      await startedJob('Ping @channel & <!subteam^S123|@docs> about <script>');
      const root = JSON.stringify(slack.callsTo('chat.postMessage')[0]?.args.blocks);
      expect(root).not.toContain('<!channel>');
      expect(root).not.toContain('<!subteam');
      expect(root).toContain('@\u200Bchannel &amp; &lt;!subteam^S123|@docs&gt;');
      expect(root).toContain('&lt;script&gt;');
    });

    it("sends the prompt to the agent as typed, not in Slack's wire encoding, and echoes it escaped once", async () => {
      await boot();
      await startedJob('Fix the <Note> callout & link');
      expect(sim.requests[0]?.body).toEqual({ prompt: 'Fix the <Note> callout & link' });
      const root = JSON.stringify(slack.callsTo('chat.postMessage')[0]);
      expect(root).toContain('Fix the &lt;Note&gt; callout &amp; link');
      expect(root).not.toContain('&amp;lt;');
    });

    it('decodes a thread reply: entities, links and people by display name', async () => {
      await boot();
      const { rootTs } = await startedJob();
      slack.users.delete('U345CAROL'); // left the workspace after being mentioned: users.info no longer knows her
      await postJson(
        app.url,
        threadReply(rootTs, { text: 'Also <Tip> & [a](https://a.example) for @bob, ask @carol' }),
      );
      await eventually(() => followUpCalls()[0]);
      expect(followUpCalls()[0]?.body).toEqual({
        prompt: 'Also <Tip> & a (https://a.example) for @Bob Lee, ask @U345CAROL',
      });
    });

    it('shows a prLink as a link only when it is https', async () => {
      await boot();
      const { jobId, rootTs } = await startedJob();
      sim.endJob(jobId, { status: 'completed', prLink: 'javascript:alert(1)' });
      const [post] = await eventually(() => threadPosts(rootTs).length && threadPosts(rootTs));
      expect(JSON.stringify(post?.args.blocks)).not.toContain('"url"');
      expect(JSON.stringify(post?.args.blocks)).not.toContain('<javascript:');
    });

    it('never puts the admin key in anything it posts or logs', async () => {
      await boot();
      const { jobId, rootTs } = await startedJob();
      sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/1' });
      await eventually(() => app.logs().includes('poller.outcome_posted'));
      expect(threadPosts(rootTs)).toHaveLength(1);
      expect(JSON.stringify(slack.calls)).not.toContain(TEST_API_KEY);
      expect(app.logs()).not.toContain(TEST_API_KEY);
    });
  });

  it('delivers the outcome once after Slack rate-limits and fails the post', async () => {
    await boot();
    const { jobId, rootTs } = await startedJob();
    slack.fail('chat.postMessage', { status: 429, retryAfterSec: 1 });
    slack.fail('chat.postMessage', { error: 'internal_error' });
    sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/5' });
    await eventually(
      () => slack.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === rootTs).length >= 3,
      10_000,
      'posts after rate limit',
    );
    await settle();
    const delivered = threadPosts(rootTs).length - 2; // two attempts were refused by the fake
    expect(delivered).toBe(1);
  });

  it('gives up tracking after JOB_MAX_AGE_MS with a message in the thread', async () => {
    await boot({ JOB_MAX_AGE_MS: '300' });
    const { rootTs } = await startedJob();
    const [post] = await eventually(() => threadPosts(rootTs).length && threadPosts(rootTs));
    expect(post?.args.text).toContain('stopped tracking');
  });
});
