import { describe, expect, it } from 'vitest';
import { messageShortcut } from '../fixtures/conversation.js';
import { buttonClick, buttonsIn, CHANNEL_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storesOnly } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { fingerprintOf, oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';

// Every door of a workspace after Disconnect, and of one that never connected Mintlify. Seen: after Disconnect, a
// reply in the thread of a job whose project came from a channel's route (not the workspace's default project) was
// ignored without a word, while replies in the default project's threads were told it is not connected any more:
// only the default project was named in the connection's log. A form open when Mintlify was disconnected (the
// message shortcut's, Draft a fix's) closed on submit without a word, its instruction lost.

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

  const connected = async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    await ws.install('T1', ALICE);
    expect(await ws.connect('T1', ALICE, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
  };

  /** The form Slack opened last, submitted with `instruction` in its instruction field. */
  const submitted = async (instruction: string) => {
    const opened = h.slack.callsTo('views.open').at(-1)?.args.view as Record<string, unknown>;
    const values = { instruction: { value: { type: 'plain_text_input', value: instruction } } };
    return ws.interact('T1', ALICE, { type: 'view_submission', view: { ...opened, id: 'V9', state: { values } } });
  };

  it.each([
    [
      'the message shortcut’s',
      async () => {
        const said = h.slack.people.says(ALICE, CHANNEL_ID, 'The retry docs are wrong');
        await ws.interact('T1', ALICE, messageShortcut({ ts: said.ts, text: said.text, user: ALICE }));
      },
    ],
    [
      'Draft a fix’s',
      async () => {
        await h.command('/insights feedback 30d', { user: ALICE, channel: CHANNEL_ID, fields, responseId: 'fb' });
        const list = await h.answer('fb');
        const draft = buttonsIn(list.args.blocks).find((b) => b.button.action_id === 'insights.draft');
        if (!draft) throw new Error('no Draft a fix button');
        await ws.interact('T1', ALICE, buttonClick(draft.button, { blockId: draft.blockId, ephemeral: true }));
      },
    ],
  ])('keeps %s form open when submitted after Disconnect, saying so on its instruction', async (_, open) => {
    await connected();
    const forms = h.slack.callsTo('views.open').length;
    await open();
    await eventually(() => h.slack.callsTo('views.open').length > forms, 5_000, 'the form');
    await disconnect();
    const asked = h.sim.requests.length;
    const ack = await submitted('Fix the retry page');
    expect(ack).toEqual({
      response_action: 'errors',
      errors: { instruction: expect.stringContaining('Mintlify is not connected to this workspace any more') },
    });
    await settle(300);
    expect(h.sim.requests.length).toBe(asked);
    expect(h.slack.callsTo('chat.postEphemeral')).toHaveLength(0);
  });

  it('answers /agent, a mention and a DM after Disconnect: not connected any more, who can connect it, the text', async () => {
    await connected();
    await disconnect();
    const agent = await h.command('/agent Fix the <Note> callout', { user: ALICE, channel: CHANNEL_ID, fields });
    expect(String(agent.ack?.text)).toContain('Mintlify is not connected to this workspace any more');
    expect(String(agent.ack?.text)).toContain('>Fix the &lt;Note&gt; callout');
    const ephemerals = () => h.slack.callsTo('chat.postEphemeral');
    await h.deliver(h.slack.people.says(ALICE, CHANNEL_ID, '@mintlify Document the API').events);
    await h.deliver(h.slack.people.says(ALICE, `D${ALICE}`, 'Add a FAQ page').events);
    await eventually(() => ephemerals().length >= 2, 5_000, 'the answers');
    await settle(300);
    expect(ephemerals().map((c) => String(c.args.text))).toEqual([
      expect.stringMatching(/not connected to this workspace any more[\s\S]*>Document the API$/),
      expect.stringMatching(/not connected to this workspace any more[\s\S]*>Add a FAQ page$/),
    ]);
    expect(h.sim.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('lists a person’s earlier jobs for `my jobs` in their DM after Disconnect, as App Home does', async () => {
    await connected();
    const job = await h.startJob('Document the retry policy', { user: ALICE, channel: CHANNEL_ID, fields });
    await disconnect();
    await eventually(() => h.threadPosts(job.rootTs)[0], 5_000, 'the note in the thread');
    const asked = h.sim.requests.length;
    await h.deliver(h.slack.people.says(ALICE, `D${ALICE}`, 'my jobs').events);
    const said = () => h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === `D${ALICE}`);
    const list = await eventually(() => said()[0], 5_000, 'the list');
    expect(String(list.args.text)).toContain('Your newest Mintlify agent jobs');
    expect(String(list.args.text)).toContain('>Document the retry policy');
    await settle(300);
    expect(said()).toHaveLength(1);
    expect(h.slack.callsTo('chat.postEphemeral')).toEqual([]);
    expect(h.sim.requests.length).toBe(asked);
  });

  it('answers `my jobs` of a person without jobs, never connected: how to connect, not “send me an instruction”', async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    await ws.install('T1', ALICE);
    await h.deliver(h.slack.people.says(ALICE, `D${ALICE}`, 'my jobs').events);
    const answer = await eventually(() => h.slack.callsTo('chat.postEphemeral')[0], 5_000, 'the answer');
    expect(String(answer.args.text)).toContain('Mintlify is not connected to this workspace yet');
    expect(String(answer.args.text)).not.toContain('Send me an instruction');
    await settle(300);
    expect(h.slack.callsTo('chat.postEphemeral')).toHaveLength(1);
    expect(h.slack.callsTo('chat.postMessage')).toEqual([]);
  });

  it('answers Stop pressed after Disconnect, before the job’s next poll noticed it', async () => {
    h.slack.view = 'agent_view';
    // Polls far apart: the job is still followed when Stop is pressed.
    await h.boot({ env: oauthEnv(h, { POLL_INTERVAL_MS: '60000', POLL_MAX_INTERVAL_MS: '60000' }) });
    ws.prepare();
    await ws.install('T1', ALICE);
    expect(await ws.connect('T1', ALICE, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
    const job = await h.startJob('Document the retry policy', { user: ALICE, channel: CHANNEL_ID, fields });
    const session = () => h.slack.tenant('T1').agentSession(CHANNEL_ID, job.rootTs);
    await eventually(() => session()?.status === 'processing', 5_000, 'the session processing');
    await disconnect();
    const asked = h.sim.requests.length;
    await h.deliver(h.slack.people.stopsSession(ALICE, CHANNEL_ID, job.rootTs, 'T1'));
    const ephemerals = () => h.slack.callsTo('chat.postEphemeral');
    const answer = await eventually(() => ephemerals()[0], 5_000, 'the answer to Stop');
    expect(answer.args).toMatchObject({ channel: CHANNEL_ID, user: ALICE, thread_ts: job.rootTs });
    expect(String(answer.args.text)).toContain('Mintlify is not connected to this workspace any more');
    // Slack leaves the session's status to the app: its spinner and Stop button must not stay.
    await eventually(() => session()?.status !== 'processing', 5_000, 'the session out of processing');
    await settle(300);
    expect(ephemerals()).toHaveLength(1);
    expect(h.sim.requests.length).toBe(asked);
  });

  it('answers Stop on the job of a project the connection no longer has, before its next poll noticed it', async () => {
    h.slack.view = 'agent_view';
    await h.boot({ env: oauthEnv(h, { POLL_INTERVAL_MS: '60000', POLL_MAX_INTERVAL_MS: '60000' }) });
    ws.prepare();
    await ws.install('T1', ALICE);
    const routes = `${CHANNEL_ID}:proj_r`;
    expect(await ws.connect('T1', ALICE, { apiKey: KEY_A, project: 'proj_a', routes })).toBeUndefined();
    const job = await h.startJob('Document the retry policy', { user: ALICE, channel: CHANNEL_ID, fields });
    const session = () => h.slack.tenant('T1').agentSession(CHANNEL_ID, job.rootTs);
    await eventually(() => session()?.status === 'processing', 5_000, 'the session processing');
    // Still connected, but the channel's route to proj_r is taken out.
    expect(await ws.connect('T1', ALICE, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
    const asked = h.sim.requests.length;
    await h.deliver(h.slack.people.stopsSession(ALICE, CHANNEL_ID, job.rootTs, 'T1'));
    const ephemerals = () => h.slack.callsTo('chat.postEphemeral');
    const answer = await eventually(() => ephemerals()[0], 5_000, 'the answer to Stop');
    expect(answer.args).toMatchObject({ channel: CHANNEL_ID, user: ALICE, thread_ts: job.rootTs });
    expect(String(answer.args.text)).toContain(
      'Project `proj_r` is not connected to Mintlify in this workspace any more, so I can’t tell the agent to stop',
    );
    // Slack leaves the session's status to the app: its spinner and Stop button must not stay.
    await eventually(() => session()?.status !== 'processing', 5_000, 'the session out of processing');
    await settle(300);
    expect(ephemerals()).toHaveLength(1);
    expect(h.sim.requests.length).toBe(asked);
  });

  it('answers the message shortcut and a Draft a fix button after Disconnect once each, opening no form', async () => {
    await connected();
    await h.command('/insights feedback 30d', { user: ALICE, channel: CHANNEL_ID, fields, responseId: 'fb' });
    const draft = buttonsIn((await h.answer('fb')).args.blocks).find((b) => b.button.action_id === 'insights.draft');
    if (!draft) throw new Error('no Draft a fix button');
    await disconnect();
    const asked = h.sim.requests.length;
    const said = h.slack.people.says(ALICE, CHANNEL_ID, 'The retry docs are wrong');
    const url = h.slack.responseUrl('shortcut');
    await ws.interact('T1', ALICE, messageShortcut({ ts: said.ts, text: said.text, user: ALICE }, url));
    const clicked = { blockId: draft.blockId, ephemeral: true, responseUrl: h.slack.responseUrl('draft') };
    await ws.interact('T1', ALICE, buttonClick(draft.button, clicked));
    for (const id of ['shortcut', 'draft']) {
      expect(String((await h.answer(id)).args.text)).toContain('Mintlify is not connected to this workspace any more');
    }
    await settle(300);
    expect([h.answers('shortcut').length, h.answers('draft').length]).toEqual([1, 1]);
    expect(h.slack.callsTo('views.open')).toHaveLength(1); // the connect form only
    expect(h.sim.requests.length).toBe(asked);
  });
});
