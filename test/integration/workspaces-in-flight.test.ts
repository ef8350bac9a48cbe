import { describe, expect, it } from 'vitest';
import { buttonClick, buttonsIn, CHANNEL_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storesOnly } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { fingerprintOf, oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';

// Work in flight when an admin disconnects Mintlify or connects another project. Seen: a job being tracked was
// polled with an empty key after Disconnect (401 at Mintlify on every poll), and with the new project's key after a
// Change (another project's key sent for it), silently until it expired hours later; the thread and the root still
// said "Working". A reply in its thread after Disconnect was ignored without a word.

const KEY_A = 'mint_acme_7e6d5c4b3a29AAAA';
const KEY_C = 'mint_acme_other_1234567CCCC';
const ALICE = 'U123ALICE';
const fields = { team_id: 'T1' };

describe.each(storesOnly)(
  'many workspaces: jobs in flight when Mintlify is disconnected or changed ($label)',
  (store) => {
    const h = useHarness({
      store,
      simulator: () => ({ jobDurationMs: 600_000, keys: { keys: { [KEY_A]: ['proj_a'], [KEY_C]: ['proj_c'] } } }),
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

    const started = async () => {
      await h.boot({ env: oauthEnv(h) });
      ws.prepare();
      await ws.install('T1', ALICE);
      expect(await ws.connect('T1', ALICE, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
      return h.startJob('Document the retry policy', { user: ALICE, channel: CHANNEL_ID, fields });
    };
    const pollsOf = (jobId: string) => h.sim.requests.filter((r) => r.path.endsWith(`/job/${jobId}`));

    it.each([
      ['Disconnect', disconnect],
      ['a Change to another project', () => ws.connect('T1', ALICE, { apiKey: KEY_C, project: 'proj_c' })],
    ])('after %s, the job is never polled without its own key', async (_, change) => {
      const job = await started();
      await change();
      const asked = pollsOf(job.jobId).length;
      await settle(1_000); // polls come every 50–200 ms here
      expect(pollsOf(job.jobId).length).toBeLessThanOrEqual(asked + 1); // one already on its way
      expect(ws.keysUsedFor('proj_a')).toEqual(new Set([fingerprintOf(KEY_A)]));
    });

    it.each([
      ['Disconnect', disconnect],
      ['a Change to another project', () => ws.connect('T1', ALICE, { apiKey: KEY_C, project: 'proj_c' })],
    ])('after %s, the thread and the root say tracking stopped, and why', async (_, change) => {
      const job = await started();
      await change();
      const note = await eventually(() => h.threadPosts(job.rootTs)[0], 5_000, 'the note in the thread');
      expect(String(note.args.text)).toContain(
        'I stopped following this job: project `proj_a` is not connected to Mintlify in this workspace any more',
      );
      await eventually(() => h.lastRootUpdate(job.rootTs).includes('Mintlify disconnected'), 5_000, 'the root');
      expect(h.lastRootUpdate(job.rootTs)).not.toContain('Working');
      await settle(500);
      expect(h.threadPosts(job.rootTs)).toHaveLength(1);
      expect(h.app.logs()).not.toContain('"event":"poller.get_failed"');
    });

    it.each([
      ['Disconnect', disconnect],
      ['a Change to another project', () => ws.connect('T1', ALICE, { apiKey: KEY_C, project: 'proj_c' })],
    ])(
      'after %s, a reply in the thread is told privately that the project is not connected, with its text',
      async (_, change) => {
        const job = await started();
        await change();
        await eventually(() => h.threadPosts(job.rootTs)[0], 5_000, 'the note in the thread');
        const reply = h.slack.people.says(ALICE, CHANNEL_ID, 'Mention the <b> headers too', { threadTs: job.rootTs });
        await h.deliver(reply.events);
        const ephemerals = () => h.slack.callsTo('chat.postEphemeral');
        const answer = await eventually(() => ephemerals()[0], 5_000, 'the answer to the reply');
        expect(answer.args).toMatchObject({ channel: CHANNEL_ID, user: ALICE, thread_ts: job.rootTs });
        expect(String(answer.args.text)).toContain(
          'Project `proj_a` is not connected to Mintlify in this workspace any more, so nothing was sent',
        );
        expect(String(answer.args.text)).toContain('>Mention the &lt;b&gt; headers too');
        await h.deliver(reply.events, { retry: 1 });
        await settle(500);
        expect(ephemerals()).toHaveLength(1);
        expect(h.followUps()).toHaveLength(0);
        expect(h.slack.callsTo('reactions.add')).toHaveLength(0);
      },
    );

    it('after Disconnect and connecting the project again, a reply in the thread picks the job up', async () => {
      const job = await started();
      await disconnect();
      await eventually(() => h.threadPosts(job.rootTs)[0], 5_000, 'the note in the thread');
      expect(await ws.connect('T1', ALICE, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
      const reply = h.slack.people.says(ALICE, CHANNEL_ID, 'Mention the headers too', { threadTs: job.rootTs });
      await h.deliver(reply.events);
      await eventually(() => h.followUps().length === 1, 5_000, 'the follow-up');
      h.sim.endJob(job.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/7' });
      const posted = () => h.threadPosts(job.rootTs).some((c) => JSON.stringify(c.args).includes('pull/7'));
      await eventually(posted, 8_000, 'the outcome after the reply');
      expect(ws.keysUsedFor('proj_a')).toEqual(new Set([fingerprintOf(KEY_A)]));
    });

    it('after a Change to another project, a button of the old project says it is not connected any more', async () => {
      await started();
      const clicks: [string, string][] = [
        ['/visitors 30d top 5', 'visitors.next'],
        ['/insights feedback 30d', 'insights.draft'],
      ];
      const made = [];
      for (const [typed, actionId] of clicks) {
        await h.command(typed, { user: ALICE, channel: CHANNEL_ID, fields, responseId: actionId });
        const found = buttonsIn((await h.answer(actionId)).args.blocks).find((b) => b.button.action_id === actionId);
        if (!found) throw new Error(`no ${actionId} button`);
        made.push(found);
      }
      expect(await ws.connect('T1', ALICE, { apiKey: KEY_C, project: 'proj_c' })).toBeUndefined();
      for (const { button, blockId } of made) {
        const id = `${button.action_id}-after`;
        await ws.interact('T1', ALICE, buttonClick(button, { blockId, responseUrl: h.slack.responseUrl(id) }));
        expect(String((await h.answer(id)).args.text)).toContain(
          'Project `proj_a` is not connected to Mintlify in this workspace any more',
        );
      }
      expect(ws.keysUsedFor('proj_a')).toEqual(new Set([fingerprintOf(KEY_A)]));
    });
  },
);
