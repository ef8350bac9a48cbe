import { describe, expect, it } from 'vitest';
import { buttonsIn, CHANNEL_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storesOnly } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { fingerprintOf, oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';

// Every door of a workspace after Disconnect, and of one that never connected Mintlify. Seen: after Disconnect, a
// reply in the thread of a job whose project came from a channel's route (not the workspace's default project) was
// ignored without a word, while replies in the default project's threads were told it is not connected any more:
// only the default project was named in the connection's log.

const KEY_A = 'mint_acme_7e6d5c4b3a29AAAA';
const ALICE = 'U123ALICE';
const fields = { team_id: 'T1' };

describe.each(storesOnly)('many workspaces: the doors after Disconnect ($label)', (store) => {
  const h = useHarness({
    store,
    simulator: () => ({ jobDurationMs: 600_000, keys: { keys: { [KEY_A]: ['proj_a', 'proj_r'] } } }),
  });
  const ws = new Workspaces(h);

  const disconnect = async () => {
    const home = await ws.openHome('T1', ALICE);
    const [button] = buttonsIn(home.blocks).filter((b) => b.button.action_id === 'mintlify_connect_remove');
    if (!button) throw new Error('no Disconnect button');
    const actions = [{ action_id: button.button.action_id, block_id: button.blockId, type: 'button' }];
    await ws.interact('T1', ALICE, { type: 'block_actions', container: { type: 'view' }, actions });
    const off = async () => JSON.stringify(await ws.openHome('T1', ALICE)).includes('not connected yet');
    await eventually(off, 5_000, 'disconnected');
  };

  it("tells a reply in the thread of a routed channel's job that its project is not connected any more", async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    await ws.install('T1', ALICE);
    const routes = `${CHANNEL_ID}:proj_r`;
    expect(await ws.connect('T1', ALICE, { apiKey: KEY_A, project: 'proj_a', routes })).toBeUndefined();
    const job = await h.startJob('Document the retry policy', { user: ALICE, channel: CHANNEL_ID, fields });
    expect(h.creates().map((r) => r.path)).toEqual([expect.stringContaining('/proj_r/')]);
    await disconnect();
    await eventually(() => h.threadPosts(job.rootTs)[0], 5_000, 'the note in the thread');

    const reply = h.slack.people.says(ALICE, CHANNEL_ID, 'Mention the headers too', { threadTs: job.rootTs });
    await h.deliver(reply.events);
    const ephemerals = () => h.slack.callsTo('chat.postEphemeral');
    const answer = await eventually(() => ephemerals()[0], 5_000, 'the answer to the reply');
    expect(answer.args).toMatchObject({ channel: CHANNEL_ID, user: ALICE, thread_ts: job.rootTs });
    expect(String(answer.args.text)).toContain(
      'Project `proj_r` is not connected to Mintlify in this workspace any more',
    );
    expect(String(answer.args.text)).toContain('>Mention the headers too');
    await settle(300);
    expect(ephemerals()).toHaveLength(1);
    expect(h.followUps()).toHaveLength(0);
    expect(ws.keysUsedFor('proj_r')).toEqual(new Set([fingerprintOf(KEY_A)]));
  });
});
