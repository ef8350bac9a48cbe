import { describe, expect, it } from 'vitest';
import { buttonsIn, CHANNEL_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storesOnly } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';

// Seen: after Disconnect, a workspace's digest could not be turned off (the not-connected gate answered every
// command, `/visitors digest off` included), and each occurrence called Mintlify with an empty key, failed on every
// try and told its subscriber "Mintlify or Slack kept failing". Now the digest commands pass the gate, and an
// occurrence of a workspace not connected is skipped (logged), its subscription paused until Mintlify is connected.

const KEY_A = 'mint_acme_7e6d5c4b3a29AAAA';
const ALICE = 'U123ALICE';
const fields = { team_id: 'T1' };

describe.each(storesOnly)('many workspaces: a digest after Disconnect ($label)', (store) => {
  let time = 0;
  const h = useHarness({
    store,
    simulator: () => ({ keys: { keys: { [KEY_A]: ['proj_a'] } } }),
    start: { now: () => time, digestEveryMs: 500 },
  });
  const ws = new Workspaces(h);

  it('is skipped, never calls Mintlify with no key, and can still be shown and turned off', async () => {
    time = Date.parse('2026-11-23T08:59:30Z'); // a Monday, before the weekly digest's minute
    const app = await h.boot({ env: oauthEnv(h), retryDelayMs: 1 });
    ws.prepare();
    await ws.install('T1', ALICE);
    expect(await ws.connect('T1', ALICE, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
    h.slack.zones.set(ALICE, 'UTC');
    expect(await h.privately('/visitors digest weekly', { user: ALICE, fields })).toContain('weekly on Monday');
    expect(await h.privately('/insights digest weekly', { user: ALICE, fields })).toContain('weekly on Monday');

    const home = await ws.openHome('T1', ALICE);
    const [disconnect] = buttonsIn(home.blocks).filter((b) => b.button.action_id === 'mintlify_connect_remove');
    if (!disconnect) throw new Error('no Disconnect button');
    const actions = [{ action_id: disconnect.button.action_id, block_id: disconnect.blockId, type: 'button' }];
    await ws.interact('T1', ALICE, { type: 'block_actions', container: { type: 'view' }, actions });
    const disconnected = async () => JSON.stringify(await ws.openHome('T1', ALICE)).includes('not connected yet');
    await eventually(disconnected, 5_000, 'disconnected');

    const asked = h.sim.requests.length;
    time = Date.parse('2026-11-23T09:00:05Z');
    const skipped = () => app.logs().match(/"event":"(visitors|insights)\.digest_skipped"/g)?.length ?? 0;
    await eventually(() => skipped() >= 2, 10_000, 'both occurrences skipped');
    await settle(1_500); // a try again would have come by now
    expect(h.sim.requests.length).toBe(asked);
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === CHANNEL_ID)).toEqual([]);
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === ALICE)).toEqual([]);
    expect(app.logs()).not.toContain('"level":"error"');

    expect(await h.privately('/visitors digest', { user: ALICE, fields })).toContain('weekly on Monday');
    expect(await h.privately('/visitors digest off', { user: ALICE, fields })).toContain('is off');
    expect(await h.privately('/insights digest off', { user: ALICE, fields })).toContain('is off');
    // Anything else still waits for Mintlify to be connected.
    const { ack } = await h.command('/visitors digest weekly', { user: ALICE, fields });
    expect(String(ack?.text)).toContain('not connected');
  });
});
