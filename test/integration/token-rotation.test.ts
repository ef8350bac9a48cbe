import { beforeEach, describe, expect, it } from 'vitest';
import { readConnectionLog } from '../../src/tenants/connection-log.js';
import { eventTs } from '../../tools/slack-standin/index.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';
import { sleep } from '../support/wait.js';

// Slack's token rotation (issue 31): with it on for the app, a bot token lives 12 hours and a refresh token buys the
// next. Requests came through Bolt's installer, which refreshes; a worker posting a job's outcome used the stored
// token and stopped working once it expired.

const KEY = 'mint_acme_4f1c2d9e8b7aAAAA';
const ACME = { team: 'T1', installer: 'U123ALICE', channel: 'C123DOCS' };

describe.each(storeKinds)('token rotation ($label)', (store) => {
  const h = useHarness({
    store,
    simulator: () => ({ jobDurationMs: 60_000, keys: { keys: { [KEY]: ['proj_a'] } } }),
  });
  const ws = new Workspaces(h);

  beforeEach(async () => {
    // Tokens that live an hour: inside Bolt's 2-hour window, so each use refreshes first.
    h.slack.rotation.enabled = true;
    h.slack.rotation.lifeS = 3_600;
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
  });

  it('a job whose tokens all expired while it ran still gets its PR posted: the worker refreshes the token', async () => {
    expect((await ws.install(ACME.team, ACME.installer)).status).toBe(200);
    expect(await ws.connect(ACME.team, ACME.installer, { apiKey: KEY, project: 'proj_a' })).toBeUndefined();
    const job = await h.startJob('Document the retry policy', {
      user: ACME.installer,
      channel: ACME.channel,
      fields: { team_id: ACME.team },
    });

    h.slack.rotation.expireAll({ teamId: ACME.team }); // hours pass: every token handed out so far has expired
    h.sim.endJob(job.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/7' });
    // A call the stand-in accepted names the workspace it acted in; a refused one (token_expired) names none.
    await eventually(
      () => h.threadPosts(job.rootTs).find((c) => c.teamId === ACME.team && JSON.stringify(c.args).includes('pull/7')),
      10_000,
      'the outcome in the thread',
    );
    const refreshes = h.slack.callsTo('oauth.v2.access').filter((c) => c.args.grant_type === 'refresh_token');
    expect(refreshes.length).toBeGreaterThan(0);
    // A renewed token is not an install: Home's recent changes still say only what people did.
    const log = await readConnectionLog(h.app.app.deps.store.scoped(ACME.team));
    expect(log.changes.map((c) => c.change)).toEqual(['installed', 'connected']);
  });

  it('two renewals of an expired token at once (instances, lanes) both get a live one: the loser reads the winner’s pair', async () => {
    h.slack.rotation.lifeS = 1;
    expect((await ws.install(ACME.team, ACME.installer)).status).toBe(200);
    await sleep(1_100); // the bot token expired, as the app and Slack both know, with nothing done meanwhile
    h.slack.rotation.lifeS = 3_600;
    // Both read the same refresh token; the first to ask is answered last, after the second spent it (Slack takes a
    // refresh token once).
    h.slack.fail('oauth.v2.access', { delayMs: 500 }, 1, (args) => args.grant_type === 'refresh_token');
    const { workspaces } = h.app.app.deps;
    const answers = await Promise.all(
      [0, 1].map(async () => (await workspaces.scope({ teamId: ACME.team })).slack.auth.test().catch((e) => e)),
    );
    expect(answers.map((a) => a.ok ?? a.data?.error)).toEqual([true, true]);
  });

  // A workspace idle for 12 hours uninstalls the app: its stored token has expired, so auth.test answered
  // token_expired, which is not "gone", and the workspace's data (its admin key among it) was never deleted.
  const installed = async () => (await h.app.app.deps.store.scoped(ACME.team).kv.get('installation:v1')) !== undefined;

  it('an uninstall after the stored token expired is believed: Slack refuses to renew it, the workspace is removed', async () => {
    expect((await ws.install(ACME.team, ACME.installer)).status).toBe(200);
    expect(await ws.connect(ACME.team, ACME.installer, { apiKey: KEY, project: 'proj_a' })).toBeUndefined();
    h.slack.rotation.expireAll({ teamId: ACME.team });
    await h.deliver(h.slack.installs.uninstall(ACME.team));
    await eventually(() => h.app.logs().includes('"event":"slack.workspace_removed"'), 5_000, 'the removal');
    expect(await installed()).toBe(false);
  });

  it('a stray app_uninstalled for a workspace whose token merely expired removes nothing, and the token is renewed', async () => {
    expect((await ws.install(ACME.team, ACME.installer)).status).toBe(200);
    h.slack.rotation.expireAll({ teamId: ACME.team });
    await h.deliver(ws.envelope(ACME.team, { type: 'app_uninstalled', event_ts: eventTs() }));
    await eventually(() => h.app.logs().includes('"event":"slack.removal_ignored"'), 5_000, 'the ignored removal');
    await settle(100);
    expect(h.app.logs()).not.toContain('"event":"slack.workspace_removed"');
    expect(h.app.logs()).toMatch(/"event":"slack\.removal_ignored".*"why":"token_accepted"/);
    expect(await installed()).toBe(true);
    const answer = await (await h.app.app.deps.workspaces.scope({ teamId: ACME.team })).slack.auth.test();
    expect(answer.ok).toBe(true);
  });
});
