import { beforeEach, describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { fingerprintOf, oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';

// One deployment serving several workspaces (issue 22): Acme (T1) and Globex (T2) install the app, each connects
// its own Mintlify project with its own key, and everything each does goes out with its own credentials only.

const KEY_A = 'mint_acme_4f1c2d9e8b7aAAAA';
const KEY_B = 'mint_globex_9a8b7c6d5e4fBBBB';
const ACME = { team: 'T1', installer: 'U123ALICE', admin: 'U567OWEN', member: 'U456BOB', channel: 'C123DOCS' };
const GLOBEX_IDS = { team: 'T2', installer: 'U2ANA', member: 'U2LEO', channel: 'C2DOCS' };
/** Digest schedulers run this often instead of at their cron times; each occurrence posts the due digest. */
const TICK_MS = 400;
const MONDAY_BEFORE_NINE = Date.parse('2026-11-23T08:59:30Z');
const WEEK_MS = 7 * 86_400_000;

const transports = [
  { transport: 'HTTP', socketMode: false },
  { transport: 'Socket Mode', socketMode: true },
];
const matrix = transports.flatMap((t) => storeKinds.map((store) => ({ ...t, store, label: store.label })));

describe.each(matrix)('many workspaces ($transport, $label)', ({ socketMode, store }) => {
  let time = MONDAY_BEFORE_NINE;
  const h = useHarness({
    store,
    slack: { socketMode },
    simulator: () => ({ jobDurationMs: 60_000, keys: { keys: { [KEY_A]: ['proj_a'], [KEY_B]: ['proj_b'] } } }),
    start: { now: () => time, digestEveryMs: TICK_MS },
  });
  const ws = new Workspaces(h);

  beforeEach(async () => {
    time = MONDAY_BEFORE_NINE;
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
  });

  /** Runs a command as `user` of `team` in `channel`, as typed. */
  const command = (typed: string, team: string, user: string, channel: string) =>
    h.command(typed, {
      user,
      channel,
      fields: { team_id: team, team_domain: h.slack.tenant(team).workspace.teamDomain },
    });

  it('installs two workspaces; each connects its own project and key, and works with its own credentials only', async () => {
    for (const [team, user] of [
      [ACME.team, ACME.installer],
      [GLOBEX_IDS.team, GLOBEX_IDS.installer],
    ] as const) {
      const page = await ws.install(team, user);
      expect(page.status).toBe(200);
      expect(page.html).toContain('Connect Mintlify');
    }

    // Connecting: a wrong key is refused on the key field, an unknown project on the project field.
    expect(await ws.connect(ACME.team, ACME.installer, { apiKey: 'mint_wrong_key_0000', project: 'proj_a' })).toEqual({
      response_action: 'errors',
      errors: { api_key: expect.stringContaining('Mintlify refused this key') },
    });
    expect(await ws.connect(ACME.team, ACME.installer, { apiKey: KEY_A, project: 'proj_b' })).toEqual({
      response_action: 'errors',
      errors: { project: expect.stringContaining('This key has no project proj_b') },
    });
    expect(await ws.connect(ACME.team, ACME.installer, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
    expect(
      await ws.connect(GLOBEX_IDS.team, GLOBEX_IDS.installer, { apiKey: KEY_B, project: 'proj_b' }),
    ).toBeUndefined();
    const home = JSON.stringify(ws.published(ACME.team, ACME.installer).at(-1)?.args.view);
    expect(home).toContain('Connected to project `proj_a` with key `mint_…AAAA`');
    h.sim.requests.splice(0); // the checks above tried wrong keys on purpose; from here on, only the saved ones

    // /agent, a follow-up and the outcome in each workspace.
    const acmeJob = await h.startJob('Document the Acme retry policy', {
      user: ACME.installer,
      channel: ACME.channel,
      fields: { team_id: ACME.team },
    });
    const globexJob = await h.startJob('Document the Globex webhooks', {
      user: GLOBEX_IDS.member,
      channel: GLOBEX_IDS.channel,
      fields: { team_id: GLOBEX_IDS.team },
    });
    const followUp = h.slack.people.says(GLOBEX_IDS.member, GLOBEX_IDS.channel, 'Mention the signature header too', {
      threadTs: globexJob.rootTs,
    });
    await h.deliver(followUp.events);
    await eventually(() => h.followUps().length === 1, 5_000, 'the follow-up');
    h.sim.endJob(globexJob.jobId, { status: 'completed', prLink: 'https://github.com/globex/docs/pull/2' });
    await eventually(
      () => h.threadPosts(globexJob.rootTs).some((c) => JSON.stringify(c.args).includes('pull/2')),
      8_000,
      'the Globex outcome',
    );

    // /visitors and a digest in each.
    for (const [team, user, channel] of [
      [ACME.team, ACME.installer, ACME.channel],
      [GLOBEX_IDS.team, GLOBEX_IDS.member, GLOBEX_IDS.channel],
    ] as const) {
      await command('/visitors 7d', team, user, channel);
      expect(String((await h.answer()).args.text)).toContain('Unique visitors');
      // At 09:00 UTC, whatever the members' own zones (the schedule this test's clock is set for).
      for (const feature of ['/visitors', '/insights']) {
        await command(`${feature} digest weekly 09:00 utc`, team, user, channel);
        expect(String((await h.answer()).args.text)).toContain('weekly on Monday');
      }
    }
    time = MONDAY_BEFORE_NINE + 35_000;
    const digests = () => h.slack.callsTo('chat.postMessage').filter((c) => String(c.args.text).includes('digest'));
    const digestsIn = (team: string) => digests().filter((c) => c.teamId === team);
    await eventually(() => digestsIn(ACME.team)[0] && digestsIn(GLOBEX_IDS.team)[0], 10_000, 'a digest in each');
    const insightsIn = (team: string) => digestsIn(team).some((c) => String(c.args.text).includes('insights digest'));
    await eventually(() => insightsIn(ACME.team) && insightsIn(GLOBEX_IDS.team), 10_000, 'an insights digest in each');

    // Everything about a workspace's channels and people went out with that workspace's token, and each project
    // was asked with its workspace's key only.
    expect(ws.callsAbout(h.slack.tenant(ACME.team)).length).toBeGreaterThan(5);
    for (const team of [ACME.team, GLOBEX_IDS.team]) {
      for (const call of ws.callsAbout(h.slack.tenant(team))) expect(call.teamId, call.method).toBe(team);
    }
    expect(ws.keysUsedFor('proj_a')).toEqual(new Set([fingerprintOf(KEY_A)]));
    expect(ws.keysUsedFor('proj_b')).toEqual(new Set([fingerprintOf(KEY_B)]));

    // Acme removes the app: its job is no longer polled, its outcome never posted, its digest never sent, while
    // Globex goes on.
    await h.deliver(h.slack.installs.uninstall(ACME.team));
    await eventually(() => h.app.logs().includes('"event":"slack.workspace_removed"'), 5_000, 'the removal');
    await settle(TICK_MS * 2); // an Acme occurrence already running when the removal came
    const acmeDigests = digestsIn(ACME.team).length;
    // Its schedulers (both digests') went with it: no occurrence of Acme's digests comes (to be dropped) any more.
    const dropped = () => h.app.logs().match(/"event":"workspace\.work_dropped"/g)?.length ?? 0;
    const droppedAtRemoval = dropped();
    const polls = () => h.sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith(acmeJob.jobId)).length;
    const before = polls();
    h.sim.endJob(acmeJob.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/1' });
    const second = await h.startJob('Globex goes on', {
      user: GLOBEX_IDS.member,
      channel: GLOBEX_IDS.channel,
      fields: { team_id: GLOBEX_IDS.team },
    });
    h.sim.endJob(second.jobId, { status: 'completed', prLink: 'https://github.com/globex/docs/pull/3' });
    await eventually(
      () => h.threadPosts(second.rootTs).some((c) => JSON.stringify(c.args).includes('pull/3')),
      8_000,
      'the Globex outcome after the uninstall',
    );
    time += WEEK_MS;
    const nextWeek = () => digestsIn(GLOBEX_IDS.team).some((c) => String(c.args.text).includes('23–29 Nov 2026'));
    await eventually(nextWeek, 10_000, "Globex's next digest");
    await settle(TICK_MS * 3);
    expect(polls()).toBeLessThanOrEqual(before + 1);
    expect(h.threadPosts(acmeJob.rootTs).filter((c) => JSON.stringify(c.args).includes('pull/1'))).toHaveLength(0);
    expect(digestsIn(ACME.team)).toHaveLength(acmeDigests);
    expect(dropped()).toBe(droppedAtRemoval);
    expect(await h.app.app.deps.store.scoped(ACME.team).kv.get('installation:v1')).toBeUndefined();
  });
});
