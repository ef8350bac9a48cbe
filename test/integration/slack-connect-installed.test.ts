import { beforeEach, describe, expect, it } from 'vitest';
import { feedbackClick, otherWorkspace, viaInstallation } from '../../tools/slack-standin/index.js';
import { useHarness } from '../support/harness.js';
import { memoryStore, type StoreKind, storeKinds } from '../support/redis.js';
import { boundRoots, settle } from '../support/steps.js';
import { fingerprintOf, oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually, metricsUrlOf } from '../support/test-app.js';

// Slack Connect where both organisations installed the app (issue 31, defect 2): Slack names one installation per
// event, whichever it likes; a person still acts with their own organisation's connection, and a job's thread is
// the workspace's that started it.

const PARTNERS = 'C456PARTNERS'; // Acme's, shared with Initech (and Hooli, which has not installed the app)
const ALICE = 'U123ALICE'; // Acme
const DAVE = 'U9DAVE'; // Initech
const HAL = 'U8HAL'; // Hooli
const KEY_ACME = 'mint_acme_7e6d5c4b3a29AAAA';
const KEY_INITECH = 'mint_initech_0f1e2d3c4b5aIIII';

/**
 * Acme and Initech share #partners, both installed the app and connected their own project; Hooli shares it too,
 * without the app. Runs the scenario every deployment must pass, and returns how people write there.
 */
function bothInstalled(store: StoreKind, allowExternal: string, env: Record<string, string> = {}) {
  const h = useHarness({
    store,
    simulator: () => ({
      jobDurationMs: 60_000,
      keys: { keys: { [KEY_ACME]: ['proj_acme'], [KEY_INITECH]: ['proj_initech'] } },
    }),
  });
  const ws = new Workspaces(h);

  beforeEach(async () => {
    await h.boot({ env: oauthEnv(h, { AGENT_ALLOW_EXTERNAL: allowExternal, ...env }) });
    ws.prepare();
    const acme = h.slack.workspace;
    const hal = { id: HAL, name: 'hal', realName: 'Hal Hooper', displayName: 'hal' };
    acme.connectedTeams = [
      ...(acme.connectedTeams ?? []),
      { teamId: 'T8HOOLI', teamDomain: 'hooli', teamName: 'Hooli', users: [hal] },
    ];
    const partners = acme.channels.find((c) => c.id === PARTNERS);
    if (partners) partners.sharedWith = ['T9INITECH', 'T8HOOLI'];
    const people = acme.users.filter((u) => !u.isBot);
    const initech = otherWorkspace('T9INITECH', 'initech', {
      users: [
        { id: DAVE, name: 'dave', realName: 'Dave Dunn', displayName: 'Dave', isAdmin: true },
        { id: 'U9INITECHBOT', name: 'mintlify', realName: 'Mintlify', displayName: 'Mintlify', isBot: true },
      ],
      channels: [{ id: PARTNERS, name: 'partners', sharedWith: ['T1'] }],
      connectedTeams: [{ teamId: 'T1', teamDomain: 'acme', teamName: 'Acme', users: people }],
    });
    h.slack.addWorkspace(initech);
    h.slack.refuseToken(initech.botToken, 'invalid_auth');
    await ws.install('T1', 'U567OWEN');
    await ws.install('T9INITECH', DAVE);
    expect(await ws.connect('T1', 'U567OWEN', { apiKey: KEY_ACME, project: 'proj_acme' })).toBeUndefined();
    expect(await ws.connect('T9INITECH', DAVE, { apiKey: KEY_INITECH, project: 'proj_initech' })).toBeUndefined();
  });

  /** `user` writes in #partners as `team`'s copy stores it; Slack delivers it through `via`'s installation. */
  const says = async (team: string, via: string, user: string, typed: string, threadTs?: string) => {
    const said = h.slack.people.says(user, PARTNERS, typed, { teamId: team, ...(threadTs && { threadTs }) });
    await h.deliver(said.events.map((e) => viaInstallation(h.slack.tenant(via), e)));
    return said;
  };
  const jobsOf = (project: string) => h.creates().filter((r) => r.path.includes(`/${project}/`));
  const followUpsOf = (project: string) => h.followUps().filter((r) => r.path.includes(`/${project}/`));

  it('a person’s mention and replies run on their own organisation’s key, whichever installation Slack named', async () => {
    const asked = await says('T1', 'T9INITECH', ALICE, '@Mintlify document the partner API');
    await eventually(() => jobsOf('proj_acme').length === 1, 5_000, 'Alice’s job on Acme’s project');
    await says('T1', 'T9INITECH', ALICE, 'and the webhooks', asked.ts);
    await eventually(() => followUpsOf('proj_acme').length === 1, 5_000, 'Alice steering her job');
    expect(ws.keysUsedFor('proj_acme')).toEqual(new Set([fingerprintOf(KEY_ACME)]));

    // Dave's reply in Alice's thread is not his to steer, even delivered through Acme's installation.
    await says('T9INITECH', 'T1', DAVE, 'and delete the pricing page', asked.ts);
    // His own mention runs on Initech's connection.
    await says('T9INITECH', 'T1', DAVE, '@Mintlify document our SSO setup');
    await eventually(() => jobsOf('proj_initech').length === 1, 5_000, 'Dave’s job on Initech’s project');
    await settle();
    expect(followUpsOf('proj_acme')).toHaveLength(1);
    expect(jobsOf('proj_acme')).toHaveLength(1);
    expect(ws.keysUsedFor('proj_initech')).toEqual(new Set([fingerprintOf(KEY_INITECH)]));
    expect(h.slack.callsTo('chat.postEphemeral')).toEqual([]);
  });

  return { h, says };
}

describe.each(storeKinds)('Slack Connect, both organisations installed ($label)', (store) => {
  const { h, says } = bothInstalled(store, 'false');

  it('a person whose organisation has not installed the app is told so, with their text', async () => {
    await says('T1', 'T1', HAL, '@Mintlify document our <billing> API');
    const note = await eventually(() => h.slack.callsTo('chat.postEphemeral')[0], 5_000, 'the private note');
    expect(note.args.user).toBe(HAL);
    expect(String(note.args.text)).toContain('your organisation has not installed Mintlify');
    expect(String(note.args.text)).toContain('>document our &lt;billing&gt; API');
    await settle();
    expect(h.creates()).toHaveLength(0);
  });

  it('Dave’s 👍 or 👎 under Alice’s result records nothing and opens no form: told the job is not his workspace’s', async () => {
    const asked = await says('T1', 'T1', ALICE, '@Mintlify document the partner API');
    const jobId = await eventually(() => [...boundRoots(h.slack).values()][0], 5_000, 'Alice’s job');
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/42' });
    const outcome = await eventually(
      () =>
        h.slack.messages.find((m) => m.thread_ts === asked.ts && JSON.stringify(m.blocks).includes('feedback_buttons')),
      5_000,
      'the outcome with its feedback buttons',
    );
    const forms = () => h.slack.callsTo('views.open').filter((c) => JSON.stringify(c.args.view).includes('feedback'));
    for (const choice of ['positive', 'negative'] as const) {
      const responseUrl = h.slack.responseUrl(`dave-${choice}`);
      await h.interact(feedbackClick(h.slack, { user: DAVE, message: outcome, choice, responseUrl }));
      const note = await eventually(() => h.slack.callsTo(`response_url:dave-${choice}`)[0], 5_000, 'the note');
      expect(String(note.args.text)).toContain('another workspace');
    }
    await settle();
    expect(forms()).toEqual([]);
    const metrics = await (await fetch(`${metricsUrlOf(h.app.app)}/metrics`)).text();
    expect(metrics).not.toMatch(/agent_feedback_total\{[^}]*\} [1-9]/);
  });
});

describe('Slack Connect, both organisations installed, AGENT_ALLOW_EXTERNAL=true, the plan card on', () => {
  // Letting other organisations in must not hand them the host's key when they have their own.
  const { h, says } = bothInstalled(memoryStore, 'true', { SLACK_PLAN_CARD: '' });

  it('the plan card of a person let in from an organisation without the app names their team, not the host’s', async () => {
    await says('T1', 'T1', HAL, '@Mintlify document our billing API');
    const started = await eventually(() => h.slack.callsTo('chat.startStream')[0], 5_000, 'the stream');
    expect(started.args).toMatchObject({ channel: PARTNERS, recipient_user_id: HAL, recipient_team_id: 'T8HOOLI' });
  });
});
