import { beforeEach, describe, expect, it } from 'vitest';
import { otherWorkspace, type Workspace } from '../../tools/slack-standin/index.js';
import { UMBRELLA } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';

// Enterprise Grid (issue 31, defect 3): "another organisation" means another enterprise. A person of another
// workspace of the same organisation is one of its people; a person of another company (Slack Connect) is not,
// even under an org-wide install.

const KEY = 'mint_umbrella_7e6d5c4b3a29UUUU';
const ANA = 'U4ANA'; // Umbrella East: an admin of the organisation
const LEO = 'U5LEO'; // Umbrella West
const DAVE = 'U9DAVE'; // Initech, through Slack Connect

/** Umbrella's two workspaces; East's #partners is shared with Initech. */
function umbrella(): Workspace[] {
  const east = otherWorkspace('T4', 'umbrella-east', {
    channels: [
      { id: 'C4DOCS', name: 'docs' },
      { id: 'C4PARTNERS', name: 'partners', sharedWith: ['T9INITECH'] },
    ],
    connectedTeams: [
      {
        teamId: 'T9INITECH',
        teamDomain: 'initech',
        teamName: 'Initech',
        users: [{ id: DAVE, name: 'dave', realName: 'Dave Dunn', displayName: 'Dave' }],
      },
    ],
  });
  east.users = east.users.map((u) => (u.id === ANA ? { ...u, isAdmin: true, isOrgAdmin: true } : u));
  return [east, otherWorkspace('T5', 'umbrella-west')];
}

describe.each(storeKinds)('Enterprise Grid: who is from another organisation ($label)', (store) => {
  const h = useHarness({ store, simulator: () => ({ jobDurationMs: 60_000, keys: { keys: { [KEY]: ['proj_u'] } } }) });
  const ws = new Workspaces(h);
  beforeEach(async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
  });

  const mention = async (user: string, channel: string, typed: string) =>
    h.deliver(h.slack.people.says(user, channel, `@Mintlify ${typed}`, { teamId: 'T4' }).events);
  const ephemerals = () => h.slack.callsTo('chat.postEphemeral');

  it('org-wide: a colleague of another workspace starts a job; a person of another company is refused', async () => {
    h.slack.addEnterprise(UMBRELLA, umbrella());
    for (const token of [UMBRELLA.botToken, 'xoxb-umbrella-east-token', 'xoxb-umbrella-west-token']) {
      h.slack.refuseToken(token, 'invalid_auth');
    }
    await ws.install('T4', ANA, { enterpriseId: UMBRELLA.id, userId: ANA });
    expect(await ws.connect('T4', ANA, { apiKey: KEY, project: 'proj_u' })).toBeUndefined();

    await mention(LEO, 'C4DOCS', 'document the west office');
    await eventually(() => h.creates().length === 1, 5_000, 'Leo’s job');
    await mention(DAVE, 'C4PARTNERS', 'document our <webhooks> API');
    const note = await eventually(() => ephemerals()[0], 5_000, 'the private note to Dave');
    expect(note.args.user).toBe(DAVE);
    expect(String(note.args.text)).toContain('you are from another organisation');
    expect(String(note.args.text)).toContain('>document our &lt;webhooks&gt; API');
    await settle();
    expect(h.creates()).toHaveLength(1);
  });

  it('org-wide: taken out of one workspace (team_access_revoked), the organisation’s installation serves the others', async () => {
    h.slack.addEnterprise(UMBRELLA, umbrella());
    await ws.install('T4', ANA, { enterpriseId: UMBRELLA.id, userId: ANA });
    expect(await ws.connect('T4', ANA, { apiKey: KEY, project: 'proj_u' })).toBeUndefined();
    h.slack.subscriptions.add('team_access_revoked');
    await h.deliver(h.slack.installs.revokeTeamAccess(UMBRELLA.id, ['T5']));
    // Asked of Slack with the organisation's token (auth.teams.list), not dismissed as naming no install: West only
    // is taken out (enterprise-grid-taken-out.test.ts says what stops there).
    const takenOut = /"event":"slack\.workspace_taken_out".*"team":"T5"/;
    await eventually(() => takenOut.test(h.app.logs()), 5_000, 'West taken out');
    expect(h.app.logs()).not.toContain('"event":"slack.workspace_removed"');
    await mention(ANA, 'C4DOCS', 'document the east office');
    await eventually(() => h.creates().length === 1, 5_000, 'East’s job');
  });

  it('org-wide: the organisation removes the app; confirmed with the org token, every workspace of it is told so', async () => {
    h.slack.addEnterprise(UMBRELLA, umbrella());
    await ws.install('T4', ANA, { enterpriseId: UMBRELLA.id, userId: ANA });
    expect(await ws.connect('T4', ANA, { apiKey: KEY, project: 'proj_u' })).toBeUndefined();
    await mention(ANA, 'C4DOCS', 'document the east office');
    await eventually(() => h.creates().length === 1, 5_000, 'East’s job');

    await h.deliver(h.slack.installs.uninstall('T4'));
    await eventually(() => h.app.logs().includes('"event":"slack.workspace_removed"'), 5_000, 'the removal');
    expect(h.app.logs()).toContain(`"tenant":"${UMBRELLA.id}"`);
    expect(await h.app.app.deps.store.scoped(UMBRELLA.id).kv.get('installation:v1')).toBeUndefined();
    for (const [team, user] of [
      ['T4', ANA],
      ['T5', LEO],
    ] as const) {
      const fields = { team_id: team, enterprise_id: UMBRELLA.id, is_enterprise_install: 'true' };
      const { ack } = await h.command('/agent Document the retry policy', { user, fields });
      expect(String(ack?.text), team).toContain('Mintlify no longer has access to this workspace');
    }
    expect(h.creates()).toHaveLength(1);
  });

  it('one workspace’s install: a colleague of another workspace of the organisation is not from another organisation', async () => {
    h.slack.addEnterprise(UMBRELLA, umbrella(), { orgWide: false });
    for (const token of ['xoxb-umbrella-east-token', 'xoxb-umbrella-west-token'])
      h.slack.refuseToken(token, 'invalid_auth');
    await ws.install('T4', ANA);
    expect(await ws.connect('T4', ANA, { apiKey: KEY, project: 'proj_u' })).toBeUndefined();

    await mention(LEO, 'C4DOCS', 'document the west office');
    await eventually(() => h.creates().length === 1, 5_000, 'Leo’s job');
    await mention(DAVE, 'C4PARTNERS', 'document our webhooks');
    await eventually(() => ephemerals()[0], 5_000, 'the private note to Dave');
    await settle();
    expect(h.creates()).toHaveLength(1);
    expect(ephemerals().map((c) => c.args.user)).toEqual([DAVE]);
  });
});
