import { beforeEach, describe, expect, it } from 'vitest';
import { eventTs, PUBLISHED_EXAMPLES } from '../../tools/slack-standin/index.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually, metricsUrlOf, type TestApp } from '../support/test-app.js';

// Issue 30 defect 9 and issue 31 defect 9, with many workspaces: a removal is believed only for an installation the
// app holds and once Slack refuses its token; it then takes every queued job of that workspace with it (failed
// ones hold prompts for up to 7 days); a command from a removed workspace is answered.

const KEY_A = 'mint_acme_4f1c2d9e8b7aAAAA';
const KEY_B = 'mint_globex_9a8b7c6d5e4fBBBB';
const ACME = { team: 'T1', installer: 'U123ALICE', channel: 'C123DOCS' };
const GLOBEX = { team: 'T2', installer: 'U2ANA', channel: 'C2DOCS' };

/** `queue_jobs{lane,state}` summed over `states`, from one scrape of the first instance (the engine's counts). */
async function queueJobs(app: TestApp, lane: string, ...states: string[]): Promise<number> {
  const text = await (await fetch(`${metricsUrlOf(app.app)}/metrics`)).text();
  const lines = text.split('\n').filter((l) => states.some((state) => l.includes(`{lane="${lane}",state="${state}"}`)));
  return lines.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe.each(storeKinds)('many workspaces, one removes the app ($label)', (store) => {
  const h = useHarness({
    store,
    simulator: () => ({ jobDurationMs: 600_000, keys: { keys: { [KEY_A]: ['proj_a'], [KEY_B]: ['proj_b'] } } }),
  });
  const ws = new Workspaces(h);
  const inTeam = (team: typeof ACME) => ({
    user: team.installer,
    channel: team.channel,
    fields: { team_id: team.team },
  });

  beforeEach(async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    await ws.install(ACME.team, ACME.installer);
    await ws.install(GLOBEX.team, GLOBEX.installer);
    expect(await ws.connect(ACME.team, ACME.installer, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
    expect(await ws.connect(GLOBEX.team, GLOBEX.installer, { apiKey: KEY_B, project: 'proj_b' })).toBeUndefined();
  });

  const removedLogged = () => h.app.logs().includes('"event":"slack.workspace_removed"');
  const installed = async (team: string) =>
    (await h.app.app.deps.store.scoped(team).kv.get('installation:v1')) !== undefined;

  it.each([
    ['Slack’s published app_uninstalled example (team T1H9RESGL)', () => PUBLISHED_EXAMPLES.app_uninstalled()],
    ['app_uninstalled for Acme while Slack still accepts its token', () => uninstalled(ACME.team)],
    ['tokens_revoked naming another bot user of Acme', () => ws.envelope(ACME.team, revokedFor('U0OTHERBOT'))],
  ])('%s: nothing is removed, Acme goes on', async (_, event) => {
    await h.deliver(event());
    await settle(300);
    expect(removedLogged()).toBe(false);
    expect(h.app.logs()).toContain('"event":"slack.removal_ignored"');
    expect(await installed(ACME.team)).toBe(true);
    await h.startJob('Still here?', inTeam(ACME));
  });

  it('an uninstall Slack confirms deletes every queued job of the workspace, the other’s stay', async () => {
    /** A job's poll is delayed between its steps, or running one. */
    const polls = () => queueJobs(h.app, 'polls', 'waiting', 'delayed', 'active');
    const { lanes } = h.app.app.deps;
    const task = (team: string, prompt: string) => ({
      kind: 'agent.start',
      workspace: { teamId: team },
      data: { prompt, audience: 'not what this kind takes' },
    });
    await h.startJob('Document the Acme retry policy', inTeam(ACME)); // a poll, delayed
    await h.startJob('Document the Globex webhooks', inTeam(GLOBEX));
    // Failed for good (a bug): kept with their prompts for up to 7 days.
    await lanes.tasks.agent.add(task(ACME.team, 'Acme secret roadmap'));
    await lanes.tasks.agent.add(task(GLOBEX.team, 'Globex plan'));
    await eventually(async () => (await queueJobs(h.app, 'agent', 'failed')) === 2, 5_000, 'the failed jobs');
    for (const team of [ACME.team, ACME.team, GLOBEX.team]) {
      await lanes.tasks.reports.add(task(team, 'later'), { delayMs: 600_000 });
    }
    await eventually(async () => (await polls()) === 2, 5_000, 'a poll each');
    expect(await queueJobs(h.app, 'reports', 'delayed')).toBe(3);

    await h.deliver(h.slack.installs.uninstall(ACME.team));
    await eventually(removedLogged, 5_000, 'the removal');
    expect(await queueJobs(h.app, 'agent', 'failed')).toBe(1);
    expect(await queueJobs(h.app, 'reports', 'delayed')).toBe(1);
    // A poll running at that moment finishes and is not run again: its workspace is gone.
    await eventually(async () => (await polls()) === 1, 5_000, 'Globex’s poll only');
    expect(await installed(ACME.team)).toBe(false);
    expect(h.app.logs()).toMatch(/"event":"slack\.workspace_removed".*"jobs":[34]/);
  });

  it('Acme’s token revoked with no event: the first call Slack refuses removes Acme, Globex goes on', async () => {
    const job = await h.startJob('Document the Acme retry policy', inTeam(ACME));
    h.slack.installs.revokeTokens(ACME.team); // the events are lost
    h.sim.endJob(job.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/9' });
    await eventually(removedLogged, 8_000, 'the removal');
    expect(h.app.logs()).toMatch(/"event":"slack\.workspace_removed".*"reason":"token_refused"/);
    expect(await installed(ACME.team)).toBe(false);
    expect(await installed(GLOBEX.team)).toBe(true);
    await h.startJob('Document the Globex webhooks', inTeam(GLOBEX));
  });

  it('a command from the removed workspace is acknowledged with what happened and its text', async () => {
    await h.deliver(h.slack.installs.uninstall(ACME.team));
    await eventually(removedLogged, 5_000, 'the removal');
    const { ack } = await h.command('/agent Document the retry policy', inTeam(ACME));
    expect(ack).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('no longer') });
    expect(String(ack?.text)).toContain('Document the retry policy');
  });

  it('reinstalled within a poll interval of the uninstall: the old job is dropped, no “store lost its data” alarm', async () => {
    const job = await h.startJob('Document the Acme retry policy', inTeam(ACME));
    // Its next poll is running (the record read, the service slow to answer) while the workspace goes and comes back.
    // (Within the client's 1 s deadline, so the poll goes on to its next step.)
    h.sim.injectFault({
      kind: 'slow',
      delayMs: 800,
      count: 1,
      match: { operation: 'get', path: new RegExp(job.jobId) },
    });
    const gets = () => h.sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith(job.jobId)).length;
    const before = gets();
    await eventually(() => gets() > before, 5_000, 'the slow poll');
    await h.deliver(h.slack.installs.uninstall(ACME.team));
    await eventually(removedLogged, 5_000, 'the removal');
    await ws.install(ACME.team, ACME.installer);
    await settle(1_500);
    expect(await ws.connect(ACME.team, ACME.installer, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
    const logs = h.app.logs();
    expect(logs).not.toContain('"event":"store.record_lost"');
    expect(logs).not.toContain('"event":"store.data_lost"');
    expect(await queueJobs(h.app, 'polls', 'delayed')).toBe(0);
    await h.startJob('Acme again', inTeam(ACME));
  });

  const uninstalled = (team: string) => ws.envelope(team, { type: 'app_uninstalled', event_ts: eventTs() });
  const revokedFor = (bot: string) => ({ type: 'tokens_revoked', tokens: { bot: [bot] }, event_ts: eventTs() });
});
