import { beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { StoreUnavailableError } from '../../src/store/store.js';
import { otherWorkspace, type StandinUser } from '../../tools/slack-standin/index.js';
import { buttonsIn } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { fingerprintOf, oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';

// Who may connect, change and disconnect a workspace's Mintlify key (issue 31, defect 1): its admins and owners, as
// Slack says at each step, and the person who connected it. Installing the app again changes nobody's rights.

const KEY_ANA = 'mint_hooli_ana_1a2b3c4dAAAA';
const KEY_ADA = 'mint_hooli_ada_5e6f7a8bDDDD';
const ANA = 'U6ANA'; // a member who installed the app first, and connected it
const LEO = 'U6LEO'; // a member
const ADA = 'U6ADA'; // an admin
const OLA = 'U6OLA'; // the primary owner

const person = (id: string, name: string, roles: Partial<StandinUser> = {}): StandinUser => ({
  id,
  name,
  realName: `${name} of Hooli`,
  displayName: name,
  ...roles,
});

/** Hooli: members, an admin and an owner (Slack gives an owner `is_admin` too). */
const hooli = () =>
  otherWorkspace('T6', 'hooli', {
    users: [
      person(ANA, 'ana'),
      person(LEO, 'leo'),
      person(ADA, 'ada', { isAdmin: true }),
      person(OLA, 'ola', { isAdmin: true, isOwner: true, isPrimaryOwner: true }),
      { id: 'U6BOT', name: 'mintlify', realName: 'Mintlify', displayName: 'Mintlify', isBot: true },
    ],
  });

describe.each(storeKinds)('who may change the Mintlify connection ($label)', (store) => {
  const h = useHarness({
    store,
    simulator: () => ({
      jobDurationMs: 60_000,
      keys: { keys: { [KEY_ANA]: ['proj_ana'], [KEY_ADA]: ['proj_ada'] } },
    }),
  });
  const ws = new Workspaces(h);

  beforeEach(async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    h.slack.addWorkspace(hooli());
    h.slack.refuseToken('xoxb-hooli-token', 'invalid_auth');
  });

  const buttons = async (user: string) =>
    buttonsIn((await ws.openHome('T6', user)).blocks).map((b) => b.button.text.text);
  const homeText = async (user: string) => JSON.stringify(await ws.openHome('T6', user));
  const forgedSubmit = (user: string, apiKey: string, project: string) =>
    ws.interact('T6', user, {
      type: 'view_submission',
      view: {
        callback_id: 'mintlify_connect',
        id: 'V9',
        team_id: 'T6',
        state: { values: { api_key: { value: { value: apiKey } }, project: { value: { value: project } } } },
      },
    });
  const clickDisconnect = (user: string) =>
    ws.interact('T6', user, {
      type: 'block_actions',
      container: { type: 'view' },
      actions: [{ action_id: 'mintlify_connect_remove', block_id: 'b', type: 'button' }],
    });
  const dmsTo = (user: string) =>
    h.slack.callsTo('chat.postMessage').filter((c) => c.teamId === 'T6' && c.args.channel === user);

  it('a member who installs the app again gains nothing: the connector keeps the key, her jobs run on it', async () => {
    await ws.install('T6', ANA);
    expect(await buttons(ANA)).toEqual(['Connect Mintlify']);
    expect(await buttons(LEO)).toEqual([]);
    expect(await ws.connect('T6', ANA, { apiKey: KEY_ANA, project: 'proj_ana' })).toBeUndefined();

    expect((await ws.install('T6', LEO)).status).toBe(200);
    expect(await buttons(LEO)).toEqual([]);
    expect(await buttons(ANA)).toEqual(['Change', 'Disconnect']);
    expect(await forgedSubmit(LEO, KEY_ADA, 'proj_ada')).toMatchObject({
      response_action: 'errors',
      errors: { project: expect.stringContaining(`<@${ANA}> (who connected it)`) },
    });
    await clickDisconnect(LEO);
    const toLeo = await eventually(() => dmsTo(LEO)[0], 5_000, 'the refused disconnect, said');
    expect(String(toLeo.args.text)).toContain(`Only <@${ANA}> (who connected it)`);

    await h.startJob('Document the retry policy', { user: ANA, channel: 'C6DOCS', fields: { team_id: 'T6' } });
    expect(ws.keysUsedFor('proj_ana')).toEqual(new Set([fingerprintOf(KEY_ANA)]));
    expect(ws.keysUsedFor('proj_ada')).toEqual(new Set());
    const home = await homeText(LEO);
    expect(home).toContain(`<@${ANA}> connected project \`proj_ana\``);
    expect(home).toContain(`<@${LEO}> installed the app again`);
    expect(home).not.toContain(KEY_ANA);
  });

  it.each([
    ['the installation', [keys.installation()]],
    ['the installation and the connection log', [keys.installation(), keys.connectionLog()]],
  ])('a member who installs after the store lost %s (the connection kept) gains nothing', async (_, lost) => {
    await ws.install('T6', ANA);
    expect(await ws.connect('T6', ANA, { apiKey: KEY_ANA, project: 'proj_ana' })).toBeUndefined();
    // Records lost alone (an evicted key, a partial restore): the connection is still there.
    for (const key of lost) await h.app.app.deps.store.scoped('T6').kv.delete(key);

    expect((await ws.install('T6', LEO)).status).toBe(200);
    expect(await buttons(LEO)).toEqual([]);
    expect(await forgedSubmit(LEO, KEY_ADA, 'proj_ada')).toMatchObject({ response_action: 'errors' });
    expect(await buttons(ANA)).toEqual(['Change', 'Disconnect']);
    expect(await homeText(LEO)).toContain(`<@${LEO}> installed the app again`);
  });

  it('admins and owners may, as Slack says at each step; the person replaced is told; every change is shown', async () => {
    await ws.install('T6', ANA);
    expect(await buttons(ADA)).toEqual(['Connect Mintlify']);
    expect(await buttons(OLA)).toEqual(['Connect Mintlify']);
    expect(await ws.connect('T6', ANA, { apiKey: KEY_ANA, project: 'proj_ana' })).toBeUndefined();

    expect(await ws.connect('T6', ADA, { apiKey: KEY_ADA, project: 'proj_ada' })).toBeUndefined();
    const told = await eventually(() => dmsTo(ANA)[0], 5_000, 'the DM to the connector replaced');
    expect(String(told.args.text)).toContain(`<@${ADA}> replaced the Mintlify key you connected`);
    expect(String(told.args.text)).toContain('`proj_ada`');
    expect(JSON.stringify(told.args)).not.toMatch(/mint_hooli/);
    // Replaced, Ana is a member again; Ada connected it, so it is hers even once she is no admin.
    expect(await buttons(ANA)).toEqual([]);
    const ada = h.slack.tenant('T6').workspace.users.find((u) => u.id === ADA);
    if (ada) ada.isAdmin = false;
    expect(await buttons(ADA)).toEqual(['Change', 'Disconnect']);

    // Promoted in Slack, Leo may at once: rights are asked of Slack each time, never remembered from an install.
    const leo = h.slack.tenant('T6').workspace.users.find((u) => u.id === LEO);
    expect(await buttons(LEO)).toEqual([]);
    if (leo) leo.isAdmin = true;
    expect(await buttons(LEO)).toEqual(['Change', 'Disconnect']);
    await clickDisconnect(OLA);
    await eventually(async () => (await homeText(OLA)).includes('not connected yet'), 5_000, 'disconnected');
    const toAda = await eventually(() => dmsTo(ADA)[0], 5_000, 'the DM to the connector disconnected');
    expect(String(toAda.args.text)).toContain(`<@${OLA}> disconnected the Mintlify key you connected`);
    expect(dmsTo(ANA)).toHaveLength(1);

    const home = await homeText(LEO);
    for (const line of [
      `<@${ANA}> installed the app`,
      `<@${ANA}> connected project \`proj_ana\``,
      `<@${ADA}> changed the key (project \`proj_ada\`)`,
      `<@${OLA}> disconnected`,
    ]) {
      expect(home).toContain(line);
    }
    expect(h.app.logs()).not.toMatch(/mint_hooli_\w+(AAAA|DDDD)/);
  });

  it('a Disconnect the store does not take leaves the key connected, and the person is told so', async () => {
    await ws.install('T6', ANA);
    expect(await ws.connect('T6', ANA, { apiKey: KEY_ANA, project: 'proj_ana' })).toBeUndefined();
    for (const { deps } of h.app.instances) {
      const { kv } = deps.store.scoped('T6');
      kv.delete = () => Promise.reject(new StoreUnavailableError('The store did not answer kv.delete'));
    }
    await clickDisconnect(ANA);
    const told = await eventually(() => dmsTo(ANA).find((c) => String(c.args.text).includes('Storage')), 5_000, 'told');
    expect(String(told.args.text)).toContain('Mintlify is still connected');
    expect(await buttons(ANA)).toEqual(['Change', 'Disconnect']);
  });

  it('a Change saved after someone else disconnected meanwhile is refused, not a disconnect silently undone', async () => {
    await ws.install('T6', ANA);
    expect(await ws.connect('T6', ANA, { apiKey: KEY_ANA, project: 'proj_ana' })).toBeUndefined();
    // Ada's new key is checked with Mintlify slowly; Ola disconnects while it is.
    h.sim.injectFault({ kind: 'slow', delayMs: 1_500, count: 1, match: { method: 'GET', path: /visitors/ } });
    const change = ws.connect('T6', ADA, { apiKey: KEY_ADA, project: 'proj_ada' });
    await eventually(() => h.sim.requests.some((r) => r.path.includes('proj_ada')), 5_000, 'the key being checked');
    await clickDisconnect(OLA);
    await eventually(async () => (await homeText(OLA)).includes('not connected yet'), 5_000, 'disconnected');
    expect(await change).toMatchObject({
      response_action: 'errors',
      errors: { api_key: expect.stringContaining('changed while') },
    });
    expect(await homeText(OLA)).toContain('not connected yet');
  });
});
