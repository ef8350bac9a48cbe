import { beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { checkSealingKey } from '../../src/tenants/sealing-check.js';
import { createSecrets } from '../../src/tenants/secrets.js';
import { runEntryPoint } from '../support/app-process.js';
import { useHarness } from '../support/harness.js';
import { redisStore, splitRedis, storeKinds } from '../support/redis.js';
import { oauthEnv, TEST_ENCRYPTION_KEY, Workspaces } from '../support/tenants.js';
import { eventually, metricsUrlOf, urlOf } from '../support/test-app.js';

// Issue 31, defects 4 and 7: a wrong SETTINGS_ENCRYPTION_KEY stops the start instead of leaving a healthy app that
// answers nobody; one workspace whose sealed records do not open is reported, to the log and to its people, and
// never stops the others.

const KEY_A = 'mint_acme_4f1c2d9e8b7aAAAA';
const KEY_B = 'mint_globex_9a8b7c6d5e4fBBBB';
const OTHER_KEY = Buffer.alloc(32, 9).toString('base64');
/** A record as another deployment (another encryption key) sealed it: well-formed, but no key here opens it. */
const foreignSeal = (tenant: string, value: unknown) =>
  createSecrets(Buffer.from(OTHER_KEY, 'base64')).seal(JSON.stringify(value), tenant);

const simulator = () => ({ jobDurationMs: 60_000, keys: { keys: { [KEY_A]: ['proj_a'], [KEY_B]: ['proj_b'] } } });

describe.each([redisStore, splitRedis])('another SETTINGS_ENCRYPTION_KEY at restart ($label)', (store) => {
  const h = useHarness({ store, simulator });
  const ws = new Workspaces(h);
  const refusal = /SETTINGS_ENCRYPTION_KEY[\s\S]*rotate-the-encryption-key/;

  it('refuses to start, naming the variable and the rotation procedure', async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    await ws.install('T1', 'U123ALICE');
    expect(await ws.connect('T1', 'U123ALICE', { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
    await expect(h.restart({ env: oauthEnv(h, { SETTINGS_ENCRYPTION_KEY: OTHER_KEY }) })).rejects.toThrow(refusal);
    // The right key starts as before.
    await h.restart({ env: oauthEnv(h) });
    ws.prepare();
    expect(JSON.stringify(await ws.openHome('T1', 'U123ALICE'))).toContain('Connected to project `proj_a`');
  });

  it('refuses even before any workspace installed: the first start sealed a check value', async () => {
    await h.boot({ env: oauthEnv(h) });
    await expect(h.restart({ env: oauthEnv(h, { SETTINGS_ENCRYPTION_KEY: OTHER_KEY }) })).rejects.toThrow(refusal);
  });

  it('refuses after an upgrade from a release without the check value, by what the installations hold', async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    await ws.install('T1', 'U123ALICE');
    await h.app.app.deps.store.kv.delete(keys.sealingCheck());
    await expect(h.restart({ env: oauthEnv(h, { SETTINGS_ENCRYPTION_KEY: OTHER_KEY }) })).rejects.toThrow(refusal);
  });
});

describe.each([redisStore, splitRedis])('a rotation started by another instance ($label)', (store) => {
  const h = useHarness({ store, simulator });
  const ws = new Workspaces(h);

  it('an instance still on the old key only says /healthz 503 and what to do, not healthy and deaf', async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    await ws.install('T1', 'U123ALICE');
    // Another instance starts with a new key and the old one as previous: its start seals the check value again.
    const rotated = createSecrets(Buffer.from(OTHER_KEY, 'base64'), [Buffer.from(TEST_ENCRYPTION_KEY, 'base64')]);
    await checkSealingKey(h.app.app.deps.store, rotated, h.app.app.deps.log);

    for (const app of h.apps) {
      await eventually(async () => (await fetch(`${urlOf(app.app)}/healthz`)).status === 503, 8_000, 'healthz 503');
      const detailed = await (await fetch(`${metricsUrlOf(app.app)}/healthz`)).json();
      expect(detailed).toEqual({ ok: false, failing: ['encryption_key'] });
    }
    expect(h.app.logs()).toMatch(/"event":"secrets\.key_replaced".*SETTINGS_ENCRYPTION_PREVIOUS_KEYS/);
  });
});

describe('another SETTINGS_ENCRYPTION_KEY at restart (a real process)', () => {
  const h = useHarness({ store: redisStore, simulator });

  // A fresh clone's first spawn compiles the app from source (tsx), beside other suites on 2 cores: a minute at most.
  it('exits with the reason on stderr instead of serving /healthz', { timeout: 90_000 }, async () => {
    await h.boot({ env: oauthEnv(h) });
    await h.stopApps();
    const exit = await runEntryPoint(h.appEnv(oauthEnv(h, { SETTINGS_ENCRYPTION_KEY: OTHER_KEY })), 60_000);
    expect(exit.signal, 'it stopped by itself').toBeNull();
    expect(exit.code).toBe(78); // EX_CONFIG
    expect(exit.stderr).toMatch(/SETTINGS_ENCRYPTION_KEY[\s\S]*rotate-the-encryption-key/);
    expect(exit.stdout + exit.stderr).not.toContain(OTHER_KEY);
  });
});

describe.each(storeKinds)('a workspace whose sealed records do not open ($label)', (store) => {
  const h = useHarness({ store, simulator });
  const ws = new Workspaces(h);

  beforeEach(async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    await ws.installAcmeAndGlobex({ acme: KEY_A, globex: KEY_B });
  });

  it('tells its people why nothing runs and who can fix it, and the other workspace goes on', async () => {
    const settings = { projectId: 'proj_a', channelProjects: {}, apiKey: KEY_A, changedBy: 'U123ALICE', changedAt: 1 };
    await h.app.app.deps.store.scoped('T1').kv.set(keys.mintlifySettings(), foreignSeal('T1', settings));

    const agent = await h.command('/agent Document the retry policy', {
      user: 'U123ALICE',
      channel: 'C123DOCS',
      fields: { team_id: 'T1' },
    });
    const text = String(agent.ack?.text);
    expect(text).toContain("can't read this workspace's Mintlify connection");
    expect(text).toContain('<@U123ALICE>');
    expect(text).toMatch(/>Document the retry policy$/);
    expect(h.app.logs()).toMatch(/"event":"mintlify\.settings_unreadable"[^\n]*"tenant":"T1"/);

    await h.startJob('Globex still works', { user: 'U2LEO', channel: 'C2DOCS', fields: { team_id: 'T2' } });
    expect(ws.keysUsedFor('proj_b').size).toBe(1);
  });
});

describe.each([redisStore, splitRedis])('one unreadable installation at start ($label)', (store) => {
  const h = useHarness({ store, simulator, start: { digestEveryMs: 60_000 } });
  const ws = new Workspaces(h);

  it('is skipped and reported; every other workspace is checked and its digests adopted', async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    await ws.install('T1', 'U123ALICE');
    await ws.install('T2', 'U2ANA');
    expect(await ws.connect('T2', 'U2ANA', { apiKey: KEY_B, project: 'proj_b' })).toBeUndefined();
    const subscribe = await h.command('/visitors digest weekly 09:00 utc', {
      user: 'U2ANA',
      channel: 'C2DOCS',
      fields: { team_id: 'T2', team_domain: h.slack.tenant('T2').workspace.teamDomain },
    });
    expect(subscribe.status).toBe(200);
    await h.answer(subscribe.responseId);
    // Its scheduler gone, as a release before schedulers left it: adopting it at start is what this shows.
    expect(await h.app.app.deps.lanes.tasks.digests.unschedule('digest/T2/C2DOCS')).toBe(true);
    const installation = { team: { id: 'T1' }, user: { id: 'U123ALICE' }, bot: { token: 'x', userId: 'U', id: 'B' } };
    await h.app.app.deps.store.scoped('T1').kv.set(keys.installation(), foreignSeal('T1', installation));

    const restarted = await h.restart({ env: oauthEnv(h) });
    const lines = (event: string) =>
      restarted
        .logs()
        .split('\n')
        .filter((l) => l.includes(`"event":"${event}"`));
    const line = (event: string) => () => lines(event)[0];
    const adopted = () => lines('visitors.digests_adopted').map((l) => (JSON.parse(l) as { digests: number }).digests);
    await eventually(() => adopted().some((n) => n === 1), 8_000, "Globex's digest adopted");
    const checked = await eventually(line('secrets.checked'), 8_000, 'the sealed secrets checked');
    expect(JSON.parse(checked)).toMatchObject({ workspaces: 1 });
    const unreadable = await eventually(line('secrets.installation_unreadable'), 8_000, 'the report');
    expect(JSON.parse(unreadable)).toMatchObject({ level: 'error', tenant: 'T1' });
    expect(restarted.logs()).not.toMatch(/digest_adopt_failed|secrets\.check_failed/);
  });
});
