import { createClient } from '@keyv/redis';
import { beforeEach, describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.js';
import { dropNamespace, redisStore, TEST_REDIS_URL } from '../support/redis.js';
import { oauthEnv, TEST_ENCRYPTION_KEY, Workspaces } from '../support/tenants.js';
import { eventually, metricsUrlOf } from '../support/test-app.js';
import { ackBodies } from '../support/wire-safety.js';

// What a deployment serving many workspaces keeps (issue 22): each workspace's data under its own keys, the admin
// keys and bot tokens never in clear anywhere, and everything still there after a restart.

const KEY_A = 'mint_acme_0f1e2d3c4b5aAAAA';
const KEY_B = 'mint_globex_5a4b3c2d1e0fBBBB';

/** Every key under `namespace` in Redis and its value as text, whatever its type. */
async function rawStore(namespace: string): Promise<Map<string, string>> {
  const client = createClient({ url: TEST_REDIS_URL });
  await client.connect();
  const raw = new Map<string, string>();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${namespace}:*`, COUNT: 500 })) {
      for (const key of keys) {
        const type = await client.type(key);
        const value =
          type === 'string'
            ? await client.get(key)
            : type === 'hash'
              ? await client.hGetAll(key)
              : type === 'set'
                ? await client.sMembers(key)
                : type === 'zset'
                  ? await client.zRange(key, 0, -1)
                  : type === 'list'
                    ? await client.lRange(key, 0, -1)
                    : type === 'stream'
                      ? await client.xRange(key, '-', '+')
                      : type;
        raw.set(key, JSON.stringify(value));
      }
    }
  } finally {
    await client.close();
  }
  return raw;
}

describe('many workspaces on Redis: what is stored', () => {
  const h = useHarness({
    store: redisStore,
    simulator: () => ({ jobDurationMs: 60_000, keys: { keys: { [KEY_A]: ['proj_a'], [KEY_B]: ['proj_b'] } } }),
  });
  const ws = new Workspaces(h);

  beforeEach(async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    await ws.installAcmeAndGlobex({ acme: KEY_A, globex: KEY_B });
  });

  it('keeps each workspace under its own keys, and no admin key or bot token in clear anywhere', async () => {
    const acme = await h.startJob('Acme job', { user: 'U123ALICE', fields: { team_id: 'T1' } });
    await h.startJob('Globex job', { user: 'U2LEO', channel: 'C2DOCS', fields: { team_id: 'T2' } });
    h.sim.endJob(acme.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/9' });
    await eventually(() => h.threadPosts(acme.rootTs).length > 0, 8_000, 'the Acme outcome');

    const raw = await rawStore(h.namespace);
    const ns = h.namespace;
    const queues = `${ns}:${h.slack.installs.app.clientId}:`;
    // The replay guard's: the signatures of the requests received in the last ten minutes, nothing of a workspace's.
    const signatures = `${ns}:slack:signature:v0=`;
    const outside = [...raw.keys()].filter(
      (key) => !/^ws:T[12]:/.test(key.slice(ns.length + 1)) && !key.startsWith(queues) && !key.startsWith(signatures),
    );
    // Besides the workspaces' own keys, the queues and the requests' signatures, only the list of installed
    // workspaces, the sealed value that proves the encryption key at start and the store's data-loss marker (one each
    // per deployment).
    expect(outside.sort()).toEqual([`${ns}::secrets:check:v1`, `${ns}::store:marker`, `${ns}::workspaces:v1`]);
    for (const [key, value] of raw) {
      if (key.startsWith(`${ns}:ws:T1:`)) expect(value, key).not.toMatch(/proj_b|C2DOCS|U2LEO|Globex job/);
      if (key.startsWith(`${ns}:ws:T2:`)) expect(value, key).not.toMatch(/proj_a|C123DOCS|U123ALICE|Acme job/);
    }
    const everything = [...raw].flat().join('\n');
    expect(everything).toContain('Acme job'); // the job records are there, readable
    for (const secret of [KEY_A, KEY_B, 'xoxb-']) expect(everything).not.toContain(secret);

    // Nor in logs, metrics, what Slack was sent (messages, views, answers) or what the app acknowledged.
    const metrics = await (await fetch(`${metricsUrlOf(h.app.app)}/metrics`)).text();
    const slack = JSON.stringify([h.slack.calls, ackBodies]);
    for (const secret of [KEY_A, KEY_B]) {
      expect(h.app.logs()).not.toContain(secret);
      expect(metrics).not.toContain(secret);
      expect(slack).not.toContain(secret);
    }
    // Project ids are the tenants' own: no metric carries one as a label.
    expect(metrics).not.toMatch(/project="/);
  });

  it('keeps installations, keys and settings across a restart', async () => {
    await h.restart({ env: oauthEnv(h) });
    ws.prepare();
    expect(await h.app.app.deps.workspaces.all()).toEqual([{ teamId: 'T1' }, { teamId: 'T2' }]);
    expect(JSON.stringify(await ws.openHome('T2', 'U2ANA'))).toContain('Connected to project `proj_b`');
    await h.startJob('Globex after the restart', { user: 'U2LEO', channel: 'C2DOCS', fields: { team_id: 'T2' } });
    expect(ws.keysUsedFor('proj_b').size).toBe(1);
  });

  it('rotates the encryption key: the earlier key still opens, everything is sealed again, then it can go', async () => {
    const newKey = Buffer.alloc(32, 7).toString('base64');
    const rotating = oauthEnv(h, {
      SETTINGS_ENCRYPTION_KEY: newKey,
      SETTINGS_ENCRYPTION_PREVIOUS_KEYS: TEST_ENCRYPTION_KEY,
    });
    const rotated = await h.restart({ env: rotating });
    const checked = await eventually(
      () =>
        rotated
          .logs()
          .split('\n')
          .find((line) => line.includes('"secrets.checked"')),
      5_000,
      'the check of sealed secrets',
    );
    expect(JSON.parse(checked)).toMatchObject({
      workspaces: 2,
      sealed_with_earlier_keys: 0,
      message: expect.stringContaining('remove them'),
    });
    await h.restart({ env: oauthEnv(h, { SETTINGS_ENCRYPTION_KEY: newKey }) });
    ws.prepare();
    expect(JSON.stringify(await ws.openHome('T1', 'U123ALICE'))).toContain('Connected to project `proj_a`');
    await h.startJob('Acme after the rotation', { user: 'U123ALICE', fields: { team_id: 'T1' } });
  });

  // Seen: Redis lost its data; the installations (sealed in the same store) went with it, so healing found no
  // workspace and logged `store.healed {"channels":0,…}`, and commands were told Slack said the app was uninstalled.
  it('a data loss takes the installations with it: logged as impossible to heal, and people told to reinstall', async () => {
    await dropNamespace(h.namespace);
    const logged = (event: string) =>
      h.app
        .logs()
        .split('\n')
        .filter((line) => line.includes(`"event":"${event}"`));
    const [impossible] = await eventually(
      () => {
        const found = logged('store.heal_impossible');
        return found.length > 0 && found;
      },
      20_000,
      'store.heal_impossible',
    );
    expect(JSON.parse(impossible ?? '{}')).toMatchObject({
      level: 'error',
      message: expect.stringMatching(/installations.*install the app again.*connect Mintlify again/s),
    });
    expect(logged('store.healed')).toEqual([]);

    const { ack } = await h.command('/visitors digest', { user: 'U123ALICE', fields: { team_id: 'T1' } });
    const text = String(ack?.text);
    expect(text).toContain('lost this workspace’s installation');
    expect(text).toContain('/slack/install');
    expect(text).not.toContain('Slack says');
  });
});
