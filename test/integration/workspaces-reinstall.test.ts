import { describe, expect, it } from 'vitest';
import { buttonsIn, CHANNEL_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storesOnly } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';

// A workspace that removed the app and installed it again. Seen: once installed again and before anyone connected
// Mintlify, a reply in the thread of a job started before the removal was ignored without a word (the removal took
// the job's record; the not-connected gate let thread replies through for the agent, which knew no job there).

const KEY_A = 'mint_acme_7e6d5c4b3a29AAAA';
const ALICE = 'U123ALICE'; // a member
const OWEN = 'U567OWEN'; // an admin and owner
const fields = { team_id: 'T1' };

describe.each(storesOnly)('many workspaces: installed again after a removal ($label)', (store) => {
  let time = Date.now();
  const h = useHarness({
    store,
    simulator: () => ({ jobDurationMs: 600_000, keys: { keys: { [KEY_A]: ['proj_a'] } } }),
    start: { now: () => time, digestEveryMs: 200 },
  });
  const ws = new Workspaces(h);
  const ephemerals = () => h.slack.callsTo('chat.postEphemeral');

  /** Alice installs, connects and starts a job; Slack removes the app; Alice installs it again, connecting nothing. */
  const reinstalled = async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    await ws.install('T1', ALICE);
    expect(await ws.connect('T1', ALICE, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
    const job = await h.startJob('Document the retry policy', { user: ALICE, channel: CHANNEL_ID, fields });
    await h.deliver(h.slack.installs.uninstall('T1'));
    await eventually(() => h.app.logs().includes('"event":"slack.workspace_removed"'), 5_000, 'the removal');
    expect((await ws.install('T1', ALICE)).status).toBe(200);
    return job;
  };

  it('by an admin: it starts clean, the old job and digests stay gone, connected again too', async () => {
    time = Date.parse('2026-11-23T08:59:30Z'); // a Monday, before the weekly digests' minute
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    await ws.install('T1', ALICE);
    expect(await ws.connect('T1', ALICE, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
    h.slack.zones.set(ALICE, 'UTC');
    expect(await h.privately('/visitors digest weekly', { user: ALICE, fields })).toContain('weekly on Monday');
    expect(await h.privately('/insights digest weekly', { user: ALICE, fields })).toContain('weekly on Monday');
    const job = await h.startJob('Document the retry policy', { user: ALICE, channel: CHANNEL_ID, fields });
    await h.deliver(h.slack.installs.uninstall('T1'));
    await eventually(() => h.app.logs().includes('"event":"slack.workspace_removed"'), 5_000, 'the removal');

    expect((await ws.install('T1', OWEN)).status).toBe(200);
    const home = JSON.stringify(await ws.openHome('T1', OWEN));
    expect(home).toContain('Mintlify is not connected yet');
    expect(home).toContain(`<@${OWEN}> installed the app`);
    expect(home).not.toContain(`<@${ALICE}>`);
    expect(buttonsIn((await ws.openHome('T1', ALICE)).blocks)).toEqual([]); // no longer the installer
    expect(await ws.connect('T1', OWEN, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();

    const asked = h.sim.requests.length;
    time = Date.parse('2026-11-23T09:00:05Z');
    await settle(1_500);
    expect(h.sim.requests.slice(asked).filter((r) => r.path.includes(job.jobId))).toEqual([]);
    expect(h.sim.requests.slice(asked).filter((r) => r.path.includes('visitors'))).toEqual([]);
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === ALICE)).toEqual([]);
    expect(h.threadPosts(job.rootTs)).toEqual([]);
    expect(await h.privately('/visitors digest', { user: ALICE, fields })).not.toContain('weekly on Monday');
    expect(await h.privately('/insights digest', { user: ALICE, fields })).not.toContain('weekly on Monday');
    expect(h.app.logs()).not.toContain('"level":"error"');
  });

  it('installed again while Slack confirms the removal: the new installation stays, as any reinstall over a kept one', async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    await ws.install('T1', ALICE);
    expect(await ws.connect('T1', ALICE, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
    const checks = () => h.slack.callsTo('auth.test').length;
    const before = checks();
    h.slack.fail('auth.test', { delayMs: 1_000 }); // Slack slow to answer the removal's check
    await h.deliver(h.slack.installs.uninstall('T1'));
    await eventually(() => checks() > before, 5_000, 'the removal’s check');
    expect((await ws.install('T1', OWEN)).status).toBe(200);
    const ignored = '"event":"slack.removal_ignored"';
    await eventually(() => h.app.logs().includes('"why":"installed_again"'), 5_000, 'the removal weighed');
    await settle(300);
    expect(h.app.logs()).not.toContain('"event":"slack.workspace_removed"');
    expect(h.app.logs()).toMatch(new RegExp(`${ignored}.*"why":"installed_again"`));
    await h.startJob('Document the retry policy', { user: OWEN, channel: CHANNEL_ID, fields });
    expect(JSON.stringify(await ws.openHome('T1', OWEN))).toContain(`<@${OWEN}> installed the app again`);
  });

  it('a reply in the thread of a job from before is told privately that Mintlify is not connected, with its text', async () => {
    const job = await reinstalled();
    const reply = h.slack.people.says(ALICE, CHANNEL_ID, 'Mention the <b> headers too', { threadTs: job.rootTs });
    await h.deliver(reply.events);
    const answer = await eventually(() => ephemerals()[0], 5_000, 'the answer to the reply');
    expect(answer.args).toMatchObject({ channel: CHANNEL_ID, user: ALICE, thread_ts: job.rootTs });
    expect(String(answer.args.text)).toContain('Mintlify is not connected to this workspace yet');
    expect(String(answer.args.text)).toContain('>Mention the &lt;b&gt; headers too');
    await h.deliver(reply.events, { retry: 1 });
    await settle(300);
    expect(ephemerals()).toHaveLength(1);
    expect(h.followUps()).toHaveLength(0);
  });

  // Slack's thread_broadcast names no `parent_user_id`, only its `root`: seen, the reply was ignored without a word.
  it('a reply also sent to the channel, in the thread of a job from before, is told the same', async () => {
    const job = await reinstalled();
    const where = { threadTs: job.rootTs, broadcast: true };
    await h.deliver(h.slack.people.says(ALICE, CHANNEL_ID, 'Mention the headers too', where).events);
    const answer = await eventually(() => ephemerals()[0], 5_000, 'the answer to the reply');
    expect(answer.args).toMatchObject({ channel: CHANNEL_ID, user: ALICE, thread_ts: job.rootTs });
    expect(String(answer.args.text)).toContain('Mintlify is not connected to this workspace yet');
    expect(h.followUps()).toHaveLength(0);
  });

  it('a reply that follows up no job stays unanswered: under a post of the bot that is no job’s, a person’s, emoji', async () => {
    const job = await reinstalled();
    const tenant = h.slack.tenant('T1');
    const { botUserId, botId } = tenant.workspace;
    const post = { channel: CHANNEL_ID, ts: h.slack.nextTs(), user: botUserId, bot_id: botId, text: 'Weekly visitors' };
    tenant.messages.push(post);
    const person = h.slack.people.says(ALICE, CHANNEL_ID, 'Who broke the build?');
    for (const [threadTs, typed] of [
      [post.ts, 'Can you add last month too?'],
      [person.ts, 'It was me, sorry'],
      [job.rootTs, ':tada: :+1:'],
    ] as const) {
      await h.deliver(h.slack.people.says(ALICE, CHANNEL_ID, typed, { threadTs }).events);
    }
    await settle(500);
    expect(ephemerals()).toHaveLength(0);
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === ALICE)).toHaveLength(0);
  });
});
