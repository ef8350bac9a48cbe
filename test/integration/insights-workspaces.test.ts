import { describe, expect, it } from 'vitest';
import { buttonClick, buttonsIn, CHANNEL_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storesOnly } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';

// Draft a fix when the workspace's Mintlify connection changes while its form is open. Seen: Start job on a form
// whose project was changed away started the job on the channel's new project, with the old project's evidence.

const KEY_A = 'mint_acme_7e6d5c4b3a29AAAA';
const KEY_C = 'mint_acme_other_1234567CCCC';
const ALICE = 'U123ALICE';
const fields = { team_id: 'T1' };

describe.each(storesOnly)('many workspaces: a Draft a fix form whose project is changed away ($label)', (store) => {
  const h = useHarness({
    store,
    simulator: () => ({ jobDurationMs: 600_000, keys: { keys: { [KEY_A]: ['proj_a'], [KEY_C]: ['proj_c'] } } }),
  });
  const ws = new Workspaces(h);

  it('Start job keeps the form open and says the project is not connected, starting nothing', async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
    await ws.install('T1', ALICE);
    expect(await ws.connect('T1', ALICE, { apiKey: KEY_A, project: 'proj_a' })).toBeUndefined();
    await h.command('/insights feedback 30d', { user: ALICE, channel: CHANNEL_ID, fields, responseId: 'fb' });
    const found = buttonsIn((await h.answer('fb')).args.blocks).find((b) => b.button.action_id === 'insights.draft');
    if (!found) throw new Error('no Draft a fix');
    const opened = h.slack.callsTo('views.open').length;
    await ws.interact('T1', ALICE, buttonClick(found.button, { blockId: found.blockId, ephemeral: true }));
    const form = (await eventually(() => h.slack.callsTo('views.open')[opened], 5_000, 'the form')).args.view as {
      callback_id: string;
      private_metadata: string;
    };
    expect(await ws.connect('T1', ALICE, { apiKey: KEY_C, project: 'proj_c' })).toBeUndefined();
    const values = { instruction: { value: { type: 'plain_text_input', value: 'Fix the page.' } } };
    const ack = await ws.interact('T1', ALICE, {
      type: 'view_submission',
      view: { id: 'V1', type: 'modal', ...form, state: { values } },
    });
    expect(ack).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(ack)).toContain('Project proj_a is not connected to Mintlify in this workspace any more');
    await settle(500);
    expect(h.creates()).toHaveLength(0);
  });
});
