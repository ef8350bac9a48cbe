import { beforeEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/store/store.js';
import { type InstallChoice, otherWorkspace } from '../../tools/slack-standin/index.js';
import { buttonsIn, UMBRELLA } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { INITRODE, oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';

// Connecting Mintlify from Slack (issue 22): who may, what a workspace not connected yet hears, changing and
// disconnecting, and an organisation's org-wide install.

const KEY_A = 'mint_acme_7e6d5c4b3a29AAAA';
const KEY_G = 'mint_globex_1a2b3c4d5e6fGGGG';
const ALICE = 'U123ALICE'; // a member, installed the app in Acme
const OWEN = 'U567OWEN'; // Acme's owner
const BOB = 'U456BOB'; // a member

describe.each(storeKinds)('connecting Mintlify ($label)', (store) => {
  const h = useHarness({
    store,
    simulator: () => ({
      jobDurationMs: 60_000,
      keys: { keys: { [KEY_A]: ['proj_a', 'proj_c'], [KEY_G]: ['proj_a'] } },
    }),
  });
  const ws = new Workspaces(h);

  beforeEach(async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
  });

  const homeText = async (team: string, user: string) => JSON.stringify(await ws.openHome(team, user));
  const connectButtons = async (team: string, user: string) =>
    buttonsIn((await ws.openHome(team, user)).blocks).map((b) => b.button.text.text);

  it('answers /agent, a mention, a DM and /visitors privately until connected: who can connect it, and the text', async () => {
    await ws.install('T3', 'U3ANA');
    const fields = { team_id: 'T3', team_domain: 'initrode' };
    const agent = await h.command('/agent Fix the <Note> callout', { user: 'U3LEO', channel: 'C3DOCS', fields });
    expect(agent.ack).toMatchObject({ response_type: 'ephemeral' });
    expect(String(agent.ack?.text)).toContain('Mintlify is not connected to this workspace yet');
    expect(String(agent.ack?.text)).toContain('<@U3ANA> (who installed me) or a workspace admin or owner');
    expect(String(agent.ack?.text)).toContain('>Fix the &lt;Note&gt; callout');
    const visitors = await h.command('/visitors 7d', { user: 'U3LEO', channel: 'C3DOCS', fields });
    expect(String(visitors.ack?.text)).toMatch(/not connected[\s\S]*>7d/);

    const ephemerals = () => h.slack.callsTo('chat.postEphemeral').filter((c) => c.teamId === 'T3');
    await h.deliver(h.slack.people.says('U3LEO', 'C3DOCS', '@mintlify Document the API').events);
    const mention = await eventually(() => ephemerals()[0], 5_000, 'the answer to the mention');
    expect(mention.args).toMatchObject({ channel: 'C3DOCS', user: 'U3LEO' });
    expect(String(mention.args.text)).toMatch(/not connected[\s\S]*>Document the API$/);
    await h.deliver(h.slack.people.says('U3LEO', 'DU3LEO', 'Add a FAQ page').events);
    const dm = await eventually(() => ephemerals()[1], 5_000, 'the answer to the DM');
    expect(dm.args).toMatchObject({ channel: 'DU3LEO', user: 'U3LEO' });
    expect(String(dm.args.text)).toContain('>Add a FAQ page');

    expect(h.sim.requests).toHaveLength(0);
    expect(await homeText('T3', 'U3LEO')).toContain('<@U3ANA> (who installed me) or a workspace admin or owner');
    expect(await connectButtons('T3', 'U3LEO')).toEqual([]);
    expect(await connectButtons('T3', 'U3ANA')).toEqual(['Connect Mintlify']);
  });

  it('lets the installer, admins and the connector connect, change and disconnect, checks routes, says when Mintlify is down, and logs each change', async () => {
    await ws.install('T1', ALICE);
    expect(await connectButtons('T1', BOB)).toEqual([]);
    expect(await connectButtons('T1', ALICE)).toEqual(['Connect Mintlify']);
    expect(await connectButtons('T1', OWEN)).toEqual(['Connect Mintlify']);

    h.sim.injectFault({ kind: 'status', status: 503, count: 1 });
    expect(await ws.connect('T1', OWEN, { apiKey: KEY_A, project: 'proj_a' })).toEqual({
      response_action: 'errors',
      errors: { api_key: 'Mintlify did not answer, so nothing was saved. Try again in a minute.' },
    });
    expect(await ws.connect('T1', OWEN, { apiKey: KEY_A, project: 'proj_a', routes: '#general:proj_c' })).toEqual({
      response_action: 'errors',
      errors: { routes: expect.stringContaining('Line 1: expected channel id:project id') },
    });
    expect(await ws.connect('T1', OWEN, { apiKey: KEY_A, project: 'proj_a', routes: 'C234GENERAL:proj_x' })).toEqual({
      response_action: 'errors',
      errors: { routes: 'This key has no project proj_x: check the id in the dashboard.' },
    });
    expect(await ws.connect('T1', OWEN, { apiKey: KEY_A, project: 'proj_a', routes: 'C234GENERAL:proj_c' })).toBe(
      undefined,
    );
    const connected = await homeText('T1', OWEN);
    expect(connected).toContain('Connected to project `proj_a` with key `mint_…AAAA`');
    expect(connected).toContain('<#C234GENERAL> → `proj_c`');
    expect(await homeText('T1', BOB)).toContain('Connected to project `proj_a`.');
    expect(await homeText('T1', BOB)).not.toContain('mint_');

    // Owen connected it: Alice, a member who installed the app, no longer may.
    expect(await connectButtons('T1', ALICE)).toEqual([]);
    // Changing: the key may be left empty to keep it; the modal never carries it.
    expect(await ws.connect('T1', OWEN, { project: 'proj_c' })).toBeUndefined();
    expect(JSON.stringify(h.slack.callsTo('views.open'))).not.toContain(KEY_A);
    expect(await homeText('T1', OWEN)).toContain('Connected to project `proj_c`');

    const home = await ws.openHome('T1', OWEN);
    const [disconnect] = buttonsIn(home.blocks).filter((b) => b.button.action_id === 'mintlify_connect_remove');
    if (!disconnect) throw new Error('no Disconnect button');
    const actions = [{ action_id: disconnect.button.action_id, block_id: disconnect.blockId, type: 'button' }];
    await ws.interact('T1', OWEN, { type: 'block_actions', container: { type: 'view' }, actions });
    await eventually(async () => (await homeText('T1', OWEN)).includes('not connected yet'), 5_000, 'disconnected');
    const agent = await h.command('/agent Add a FAQ', { user: BOB, fields: { team_id: 'T1' } });
    expect(String(agent.ack?.text)).toContain('not connected');

    const changes = h.app
      .logs()
      .split('\n')
      .filter((line) => line.includes('"mintlify.connection_changed"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(changes.map(({ change, user }) => `${change} ${user}`)).toEqual([
      `connected ${OWEN}`,
      `changed ${OWEN}`,
      `disconnected ${OWEN}`,
    ]);
    expect(changes[0]).toMatchObject({ project: 'proj_a', routes: 1, key: 'mint_…AAAA', time: expect.any(String) });
    expect(h.app.logs()).not.toContain(KEY_A);
  });

  it('two workspaces on the same Mintlify project share nothing in the bot: quota, jobs and threads are their own', async () => {
    await ws.install('T1', ALICE);
    await ws.install('T2', 'U2ANA');
    expect(await ws.connect('T1', ALICE, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
    expect(await ws.connect('T2', 'U2ANA', { apiKey: KEY_G, project: 'proj_a' })).toBeUndefined();
    const acme = await h.startJob('Acme on the shared project', { user: ALICE, fields: { team_id: 'T1' } });
    expect(await homeText('T1', ALICE)).toContain('`proj_a` · new jobs: 1 of 100 used');
    expect(await homeText('T2', 'U2ANA')).toContain('`proj_a` · new jobs: 0 of 100 used');
    const { store } = h.app.app.deps;
    expect(await store.scoped('T1').jobs.active('proj_a')).toEqual([acme.jobId]);
    expect(await store.scoped('T2').jobs.active('proj_a')).toEqual([]);
    expect(await store.scoped('T2').jobs.get({ project: 'proj_a', jobId: acme.jobId })).toBeUndefined();
  });

  it('refuses a submission from someone who may not connect, on the form itself', async () => {
    await ws.install('T1', ALICE);
    const view = { callback_id: 'mintlify_connect', id: 'V9', team_id: 'T1' };
    const values = { api_key: { value: { value: KEY_A } }, project: { value: { value: 'proj_a' } } };
    expect(await ws.interact('T1', BOB, { type: 'view_submission', view: { ...view, state: { values } } })).toEqual({
      response_action: 'errors',
      errors: { project: expect.stringContaining('Only <@U123ALICE> (who installed me) or a workspace admin') },
    });
    expect(h.sim.requests).toHaveLength(0);
  });

  it('serves an org-wide install for each of the organisation’s workspaces, stored once for the organisation', async () => {
    const org = UMBRELLA;
    const [east, west] = [otherWorkspace('T4', 'umbrella-east'), otherWorkspace('T5', 'umbrella-west')];
    const [orgAdmin, westAdmin] = [east.users[0], west.users[0]];
    if (orgAdmin) orgAdmin.isOrgAdmin = true; // U4ANA: an admin of the organisation
    if (westAdmin) westAdmin.isAdmin = true; // U5ANA: an admin of one workspace only
    h.slack.addEnterprise(org, [east, west]);
    h.slack.refuseToken(org.botToken, 'invalid_auth');
    expect((await ws.install('T4', 'U4ANA', { enterpriseId: org.id, userId: 'U4ANA' })).status).toBe(200);
    expect(await h.app.app.deps.store.scoped(org.id).kv.get('installation:v1')).toEqual(expect.any(String));
    expect(await h.app.app.deps.store.scoped('T4').kv.get('installation:v1')).toBeUndefined();

    const enterprise = { enterprise_id: org.id, is_enterprise_install: 'true' };
    const westAgent = await h.command('/agent Document the west', {
      user: 'U5LEO',
      channel: 'C5DOCS',
      fields: { team_id: 'T5', ...enterprise },
    });
    expect(String(westAgent.ack?.text)).toContain('An admin or owner of your organisation can connect it');

    // Connected once, from one of its workspaces, it serves all of them with the organisation's token.
    for (const team of ['T4', 'T5']) h.slack.refuseToken(h.slack.tenant(team).workspace.botToken, 'invalid_auth');
    // The organisation's key is the organisation's: one workspace's admin may not change it (issue 31, defect 3).
    expect(await connectButtons('T5', 'U5ANA')).toEqual([]);
    expect(await connectButtons('T4', 'U4ANA')).toEqual(['Connect Mintlify']);
    expect(await ws.connect('T4', 'U4ANA', { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
    expect(await connectButtons('T5', 'U5ANA')).toEqual([]);
    const view = { callback_id: 'mintlify_connect', id: 'V9', team_id: 'T5' };
    const values = { api_key: { value: { value: KEY_G } }, project: { value: { value: 'proj_a' } } };
    expect(await ws.interact('T5', 'U5ANA', { type: 'view_submission', view: { ...view, state: { values } } })).toEqual(
      {
        response_action: 'errors',
        errors: { project: 'Only an admin or owner of your organisation can change this.' },
      },
    );
    await h.startJob('Document the west', {
      user: 'U5LEO',
      channel: 'C5DOCS',
      fields: { team_id: 'T5', ...enterprise },
    });
    const calls = ws.callsAbout(h.slack.tenant('T5'));
    expect(calls.map((c) => c.method)).toContain('chat.postMessage');
    for (const call of calls) expect(call.teamId, call.method).toBe('T5');
  });
});

describe('connecting Mintlify: a workspace without the app', () => {
  const h = useHarness({ simulator: () => ({ keys: { keys: { [KEY_A]: ['proj_a'] } } }) });
  const ws = new Workspaces(h);

  it('ends a cancelled install on a page that says so, and stores nothing', async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    const page = await ws.install(INITRODE.teamId, 'U3ANA', { teamId: INITRODE.teamId, deny: true });
    expect(page.status).toBe(400);
    expect(page.html).toContain('Mintlify was not installed');
    expect(await h.app.app.deps.workspaces.all()).toEqual([]);
  });

  /**
   * Ana adds the app to Initrode and Slack sends her browser back to the app: `back` is where it goes, with which
   * cookie (changed by the case). Resolves with the page the browser ends on.
   */
  const installEnding = async (
    back: (callback: URL, cookie: string) => [string, string?],
    choice: InstallChoice = { teamId: INITRODE.teamId, userId: 'U3ANA' },
  ) => {
    h.slack.installs.nextInstall(choice);
    const start = await fetch(`${h.app.url}/slack/install`, { redirect: 'manual' });
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const allow = await fetch(new URL(start.headers.get('location') ?? ''), { redirect: 'manual' });
    const [url, sent] = back(new URL(allow.headers.get('location') ?? ''), cookie);
    const page = await fetch(url, { headers: sent ? { cookie: sent } : {} });
    return { status: page.status, html: await page.text() };
  };
  const without = (url: URL, name: string) => {
    url.searchParams.delete(name);
    return url.href;
  };

  it.each([
    [
      'cancelled on Slack’s page (error=access_denied)',
      () => installEnding((url, cookie) => [url.href, cookie], { teamId: INITRODE.teamId, deny: true }),
      'You cancelled the install on Slack’s page, so nothing was installed.',
    ],
    [
      'back without its state',
      () => installEnding((url, cookie) => [without(url, 'state'), cookie]),
      'This install was started in another browser or more than 10 minutes ago',
    ],
    [
      'back in another browser (no state cookie)',
      () => installEnding((url) => [url.href]),
      'This install was started in another browser or more than 10 minutes ago',
    ],
    [
      'back with Slack’s own error instead of a code',
      () =>
        installEnding((url, cookie) => {
          url.searchParams.set('error', 'invalid_team_for_non_distributed_app');
          return [without(url, 'code'), cookie];
        }),
      'Slack did not complete the install (it answered invalid_team_for_non_distributed_app).',
    ],
    [
      'with a code Slack no longer takes (invalid_code)',
      () => {
        h.slack.fail('oauth.v2.access', { error: 'invalid_code' });
        return installEnding((url, cookie) => [url.href, cookie]);
      },
      'Slack’s code for this install was already used or has expired, so nothing was installed.',
    ],
    [
      'while Slack does not answer oauth.v2.access (503)',
      () => {
        h.slack.fail('oauth.v2.access', { status: 503 });
        return installEnding((url, cookie) => [url.href, cookie]);
      },
      'Slack did not answer, so nothing was installed. Try again in a minute.',
    ],
  ])('an install that ends %s says so on its page, stores nothing, and can be tried again', async (_, end, says) => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    const page = await end();
    expect(page.status).toBe(400);
    expect(page.html).toContain('Mintlify was not installed');
    expect(page.html).toContain(says);
    expect(page.html).toContain('<a href="/slack/install">Try again</a>');
    expect(await h.app.app.deps.workspaces.all()).toEqual([]);
    expect((await ws.install(INITRODE.teamId, 'U3ANA')).status).toBe(200);
  });

  it('an install the store does not answer ends on a page that says so; tried again, the installer may connect', async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    const { kv } = h.app.app.deps.store.scoped(INITRODE.teamId);
    const get = kv.get.bind(kv);
    kv.get = (() => Promise.reject(new StoreUnavailableError('The store did not answer kv.get'))) as typeof kv.get;
    const page = await ws.install(INITRODE.teamId, 'U3ANA');
    expect(page.html).toContain('My storage did not answer, so the install was not saved');
    kv.get = get;
    expect((await ws.install(INITRODE.teamId, 'U3ANA')).status).toBe(200);
    expect(await ws.connect(INITRODE.teamId, 'U3ANA', { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
  });
});
