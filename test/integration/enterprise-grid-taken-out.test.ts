import { beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { otherWorkspace, PUBLISHED_EXAMPLES } from '../../tools/slack-standin/index.js';
import { UMBRELLA } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';

// An org admin takes an org-wide install out of some of the organisation's workspaces (`team_access_revoked`). Seen:
// the installation stayed (right: it still serves the others), and nothing stopped for the workspace taken out: its
// jobs were polled and its digests asked Mintlify every week with the organisation's key, their posts failing.

const KEY = 'mint_umbrella_7e6d5c4b3a29UUUU';
const ANA = 'U4ANA'; // Umbrella East: an admin of the organisation
const LEO = 'U5LEO'; // Umbrella West

const grid = (team: string) => ({ team_id: team, enterprise_id: UMBRELLA.id, is_enterprise_install: 'true' });
const EAST = { user: ANA, channel: 'C4DOCS', fields: grid('T4') };
const WEST = { user: LEO, channel: 'C5DOCS', fields: grid('T5') };

describe.each(storeKinds)('Enterprise Grid: the org-wide install taken out of a workspace ($label)', (store) => {
  let time = Date.now();
  const h = useHarness({
    store,
    simulator: () => ({ jobDurationMs: 600_000, keys: { keys: { [KEY]: ['proj_u', 'proj_w'] } } }),
    start: { now: () => time, digestEveryMs: 200 },
  });
  const ws = new Workspaces(h);
  const takenOut = () => h.app.logs().includes('"event":"slack.workspace_taken_out"');

  beforeEach(async () => {
    time = Date.parse('2026-11-23T08:59:30Z'); // a Monday, before the weekly digests' minute
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    // Everyone keeps UTC here: the digests' minute is 09:00 UTC.
    const [east, west] = [otherWorkspace('T4', 'umbrella-east'), otherWorkspace('T5', 'umbrella-west')];
    for (const w of [east, west]) w.users = w.users.map((u) => ({ ...u, tz: 'UTC' }));
    east.users = east.users.map((u) => (u.id === ANA ? { ...u, isAdmin: true, isOrgAdmin: true } : u));
    h.slack.addEnterprise(UMBRELLA, [east, west]);
    await ws.install('T4', ANA, { enterpriseId: UMBRELLA.id, userId: ANA });
    // West's #docs is served by its own project, so what is asked of Mintlify for West can be told apart.
    const form = { apiKey: KEY, project: 'proj_u', routes: 'C5DOCS:proj_w' };
    expect(await ws.connect('T4', ANA, form)).toBeUndefined();
    h.slack.subscriptions.add('team_access_revoked');
  });

  it('West stops (its job, its digests, its commands); East goes on with the same installation', async () => {
    expect(await h.privately('/visitors digest weekly', EAST)).toContain('weekly on Monday');
    expect(await h.privately('/visitors digest weekly', WEST)).toContain('weekly on Monday');
    const westJob = await h.startJob('Document the west office', WEST);
    const eastJob = await h.startJob('Document the east office', EAST);

    await h.deliver(h.slack.installs.revokeTeamAccess(UMBRELLA.id, ['T5']));
    await eventually(takenOut, 5_000, 'West taken out');
    expect(h.app.logs()).toMatch(/"event":"slack\.workspace_taken_out".*"team":"T5"/);
    expect(h.app.logs()).not.toContain('"event":"slack.workspace_removed"');

    const asked = h.sim.requests.length;
    const westPosts = () => h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === 'C5DOCS').length;
    const postedInWest = westPosts();
    time = Date.parse('2026-11-23T09:00:05Z');
    await eventually(() => h.postsSaying('C4DOCS', 'visitors digest')[0], 10_000, 'East’s digest');
    await settle(1_000);
    const since = h.sim.requests.slice(asked);
    expect(since.filter((r) => r.path.includes('proj_w'))).toEqual([]); // neither West's job nor its digest
    expect(since.filter((r) => r.path.includes(eastJob.jobId)).length).toBeGreaterThan(0);
    expect(westPosts()).toBe(postedInWest);
    expect(h.threadPosts(westJob.rootTs)).toEqual([]);

    for (const typed of ['/agent Document the <retry> policy', '/visitors digest']) {
      const { ack } = await h.command(typed, WEST);
      expect(String(ack?.text), typed).toContain('Mintlify no longer has access to this workspace');
      expect(String(ack?.text), typed).toContain(typed.replace('<', '&lt;').replace('>', '&gt;'));
    }
    expect(await h.privately('/visitors digest', EAST)).toContain('weekly on Monday');
    await h.startJob('Document the east office again', EAST);
    expect(h.app.logs()).not.toContain('"level":"error"');
  });

  it('taken out of West with no event: the /agent a person runs there takes West out, once; East goes on', async () => {
    const lists = () => h.slack.callsTo('auth.teams.list').length;
    const before = lists();
    h.slack.installs.revokeTeamAccess(UMBRELLA.id, ['T5']); // its event lost (or not subscribed)
    await h.command('/agent Document the west office', WEST);
    await h.command('/agent Document the west office, again', WEST);
    await eventually(takenOut, 8_000, 'West taken out');
    expect(h.app.logs()).toMatch(/"event":"slack\.workspace_taken_out".*"team":"T5"/);
    const { ack } = await h.command('/agent Document the <retry> policy', WEST);
    expect(String(ack?.text)).toContain('an admin of your organisation took the app out of it');
    await settle(500);
    expect(h.app.logs().split('"event":"slack.workspace_taken_out"')).toHaveLength(2); // once
    expect(lists() - before).toBe(1);
    expect(h.app.logs()).not.toContain('"event":"slack.workspace_removed"');
    await h.startJob('Document the east office', EAST);
    expect(h.app.logs()).not.toContain('"level":"error"');
  });

  it('Slack refusing West once with team_access_not_granted while it still lists West: nothing is taken out', async () => {
    h.slack.fail('chat.postMessage', { error: 'team_access_not_granted' }, 1, (args) => args.channel === 'C5DOCS');
    await h.command('/agent Document the west office', WEST);
    const weighed =
      /"event":"slack\.removal_ignored".*"reason":"team_access_not_granted".*"team":"T5".*"still_reachable"/;
    await eventually(() => weighed.test(h.app.logs()), 8_000, 'the refusal weighed');
    await settle(300);
    expect(takenOut()).toBe(false);
    await h.startJob('Document the west office', WEST);
  });

  // Schedulers rebuilt at a start, from records an older release left: only a shared store outlives the restart.
  if (store.kind === 'redis')
    it('West’s digest rebuilt at start from an older record ends when West is taken out; added back, it is set up again', async () => {
      expect(await h.privately('/visitors digest weekly', EAST)).toContain('weekly on Monday');
      expect(await h.privately('/visitors digest weekly', WEST)).toContain('weekly on Monday');
      // As an older release left them: a record naming no workspace, and no scheduler yet.
      const { deps } = h.app.app;
      for (const channel of [EAST.channel, WEST.channel]) {
        const key = keys.digestSubscription(channel);
        const { team: _, ...older } = (await deps.store.scoped(UMBRELLA.id).kv.get(key)) as Record<string, unknown>;
        await deps.store.scoped(UMBRELLA.id).kv.set(key, older);
        await deps.lanes.tasks.digests.unschedule(`digest/${UMBRELLA.id}/${channel}`);
      }
      await h.restart({ env: oauthEnv(h) });
      const adopted = () => h.app.logs().includes('"event":"visitors.digests_adopted","digests":2');
      await eventually(adopted, 10_000, 'the schedulers rebuilt');

      await h.deliver(h.slack.installs.revokeTeamAccess(UMBRELLA.id, ['T5']));
      await eventually(takenOut, 5_000, 'West taken out');
      expect(h.app.logs()).toMatch(/"event":"slack\.workspace_taken_out".*"team":"T5".*"digests":1/);
      const asked = h.sim.requests.length;
      time = Date.parse('2026-11-23T09:00:05Z');
      await eventually(() => h.postsSaying(EAST.channel, 'visitors digest')[0], 10_000, 'East’s digest');
      await settle(1_000);
      expect(h.sim.requests.slice(asked).filter((r) => r.path.includes('proj_w'))).toEqual([]);
      expect(h.postsSaying(WEST.channel, 'visitors digest')).toEqual([]);

      h.slack.subscriptions.add('team_access_granted');
      await h.deliver(h.slack.installs.grantTeamAccess(UMBRELLA.id, ['T5']));
      await eventually(() => h.app.logs().includes('"event":"slack.workspace_added_back"'), 5_000, 'West back');
      expect(await h.privately('/visitors digest', WEST)).toContain('has no visitors digest');
      expect(await h.privately('/visitors digest weekly', WEST)).toContain('weekly on Monday');
      expect(h.app.logs()).not.toContain('"level":"error"');
    });

  it('added back to West (team_access_granted, once Slack lists it again): West is served again', async () => {
    await h.deliver(h.slack.installs.revokeTeamAccess(UMBRELLA.id, ['T5']));
    await eventually(takenOut, 5_000, 'West taken out');
    const granted = { type: 'team_access_granted', team_ids: ['T5'], event_ts: '1700000000.000200' };
    await h.deliver(ws.envelope('T4', granted)); // before Slack lists West again: not believed
    await eventually(() => h.app.logs().includes('"why":"not_reachable"'), 5_000, 'the grant weighed');
    const { ack } = await h.command('/agent Document the west office', WEST);
    expect(String(ack?.text)).toContain('Mintlify no longer has access to this workspace');

    h.slack.subscriptions.add('team_access_granted');
    await h.deliver(h.slack.installs.grantTeamAccess(UMBRELLA.id, ['T5']));
    await eventually(() => h.app.logs().includes('"event":"slack.workspace_added_back"'), 5_000, 'West back');
    await h.startJob('Document the west office', WEST);
    await h.startJob('Document the east office', EAST);
  });

  it('an event naming workspaces Slack still lists for the organisation is ignored, logged; nothing stops', async () => {
    const lists = () => h.slack.callsTo('auth.teams.list').length;
    const before = lists();
    const revoked = { type: 'team_access_revoked', team_ids: ['T5', 'T4'], event_ts: '1700000000.000100' };
    await h.deliver(ws.envelope('T4', revoked)); // replayed, or forged: Slack still lists both
    const stillReachable = (team: string) =>
      new RegExp(`"event":"slack\\.removal_ignored".*"team":"${team}".*"why":"still_reachable"`).test(h.app.logs());
    await eventually(() => stillReachable('T5') && stillReachable('T4'), 5_000, 'the removal weighed');
    expect(lists() - before).toBe(1); // asked once for the event, not once per workspace
    await settle(300);
    expect(takenOut()).toBe(false);
    await h.startJob('Document the west office', WEST);
  });

  it('Slack’s published team_access_revoked example (organisation EXXXXX) takes nothing out', async () => {
    await h.deliver(PUBLISHED_EXAMPLES.team_access_revoked());
    await settle(300);
    expect(takenOut()).toBe(false);
    await h.startJob('Document the west office', WEST);
    await h.startJob('Document the east office', EAST);
  });
});
