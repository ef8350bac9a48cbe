import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.js';
import { memoryStore, splitRedis } from '../support/redis.js';
import { oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';

// Issue 31, defect 6: no secret in any log line at any level. At LOG_LEVEL=debug (the test apps' level) the Slack
// SDK logs every request body (oauth.v2.access carries the client secret) and, in Socket Mode, every payload
// received (a connect modal's submission carries the admin key).

/** An admin key with every character a Bearer token may hold (RFC 6750's b64token): `.`, `~`, `+`, `/`, `=`. */
const ADMIN_KEY = 'mint_live.4f1c2d9e~8b7a+Qx/y_z-9=';
/** Another service's secret pasted into the connect modal's key field by mistake: not shaped like a Mintlify key. */
const PASTED_WRONG_KEY = 'sk_live_51Hx9QeLkD3f7a2b4c6d8e0f';

const transports = [
  { transport: 'HTTP', socketMode: false },
  { transport: 'Socket Mode', socketMode: true },
];
const matrix = transports.flatMap((t) => [memoryStore, splitRedis].map((store) => ({ ...t, store })));

describe.each(matrix)('secrets in the logs at debug ($transport, $store.label)', ({ socketMode, store }) => {
  const h = useHarness({
    store,
    slack: { socketMode },
    simulator: () => ({ jobDurationMs: 60_000, keys: { keys: { [ADMIN_KEY]: ['proj_a'] } } }),
  });
  const ws = new Workspaces(h);
  const secrets = {
    clientSecret: randomBytes(16).toString('hex'),
    stateSecret: randomBytes(18).toString('base64url'),
    encryptionKey: '',
  };

  beforeEach(() => {
    // Shaped as Slack and `openssl rand -base64 32` make them (a key with `+` and `/` most of the time).
    secrets.encryptionKey = randomBytes(32).toString('base64');
    h.slack.installs.app.clientSecret = secrets.clientSecret;
  });

  it('an OAuth install, a connect and a job log none of the client secret, tokens, state secret, keys', async () => {
    const env = oauthEnv(h, {
      SLACK_STATE_SECRET: secrets.stateSecret,
      SETTINGS_ENCRYPTION_KEY: secrets.encryptionKey,
    });
    await h.boot({ env });
    ws.prepare();
    expect((await ws.install('T1', 'U123ALICE')).status).toBe(200);
    // A key of the wrong shape is refused on its field; what was pasted is as secret as a right one.
    const refused = await ws.connect('T1', 'U123ALICE', { apiKey: PASTED_WRONG_KEY, project: 'proj_a' });
    expect(refused).toMatchObject({ errors: { api_key: expect.stringContaining('starts with mint_') } });
    expect(await ws.connect('T1', 'U123ALICE', { apiKey: ADMIN_KEY, project: 'proj_a' })).toBeUndefined();
    const job = await h.startJob('Document the retry policy', { user: 'U123ALICE', fields: { team_id: 'T1' } });
    h.sim.endJob(job.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/9' });
    await eventually(() => h.threadPosts(job.rootTs).length > 0, 8_000, 'the outcome');

    const logs = h.app.logs();
    // The SDK's debug lines were there to leak from: the install's token exchange and, over a socket, the payloads.
    expect(logs).toContain('oauth.v2.access');
    expect(logs.split('\n').length).toBeGreaterThan(50);
    const issuedBotToken = /xoxb-T1-[0-9a-f]{24}/;
    expect(logs).not.toMatch(issuedBotToken);
    const named = {
      ...secrets,
      signingSecret: env.SLACK_SIGNING_SECRET ?? '',
      appToken: h.slack.workspace.appToken,
      adminKey: ADMIN_KEY,
      pastedWrongKey: PASTED_WRONG_KEY,
      // What follows `mint_live` in the key: what leaked when a `.` stopped the redaction.
      adminKeyTail: ADMIN_KEY.slice('mint_live'.length),
    };
    const leaks = Object.entries(named).flatMap(([name, secret]) =>
      [...new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])]
        .filter((form) => form && logs.includes(form))
        .map((form) => `${name}: ${form}`),
    );
    expect(leaks).toEqual([]);
    // A command's response_url posts in its channel for 30 minutes: the Socket Mode payloads carried it.
    expect(logs).not.toContain(h.slack.responseUrl('').replace(/\/$/, ''));
  });
});
