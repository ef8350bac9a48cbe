import { describe, expect, it } from 'vitest';
import { messageShortcut, shortcutSubmission } from '../../../../src/agent/doors/shortcut.js';
import type { AccessRule } from '../../../../src/slack/access.js';
import { messageShortcut as shortcutPayload, viewSubmission } from '../../../fixtures/conversation.js';
import { CHANNEL_ID, USER_ID } from '../../../fixtures/slack.js';
import { contextFor, recordingAck, useAgentUnit } from '../support.js';

const OPEN: AccessRule = { allowedUsers: [], allowedChannels: [] };
const CLOSED: AccessRule = { allowedUsers: ['USOMEONE'], allowedChannels: [] };

describe('the message shortcut door', () => {
  const unit = useAgentUnit();

  /** Bob wrote a message in #docs; `USER_ID` runs the shortcut on it. */
  async function click(rule = OPEN) {
    const stored = unit().slack.postAs('U456BOB', CHANNEL_ID, 'The retry page says <5> tries');
    const message = { ts: stored.ts, text: stored.text ?? '', user: 'U456BOB' };
    const payload = shortcutPayload(message, unit().slack.responseUrl('shortcut'));
    const { ack, calls } = recordingAck();
    const context = await contextFor(rule, payload);
    const args = { shortcut: payload, body: payload, ack, context };
    await messageShortcut(unit().deps, args as never);
    const opened = unit()
      .slack.callsTo('views.open')
      .map((c) => c.args.view as Record<string, unknown>);
    return { acked: calls, opened, ts: stored.ts };
  }

  it('acks, then opens the form with the message quoted and its link, prefilled with its text', async () => {
    const { acked, opened, ts } = await click();
    expect(acked).toEqual([undefined]);
    expect(opened).toHaveLength(1);
    const metadata = JSON.parse(String(opened[0]?.private_metadata));
    expect(metadata).toMatchObject({
      channel: CHANNEL_ID,
      threadTs: ts,
      permalink: expect.stringContaining('https://'),
    });
    expect(JSON.stringify(opened[0]?.blocks)).toContain('"initial_value":"The retry page says <5> tries"');
  });

  it('opens a notice instead of the form for a person outside the allow-lists', async () => {
    const { opened } = await click(CLOSED);
    expect(JSON.stringify(opened[0])).toContain('not allowed to use the Mintlify agent here');
    expect(opened[0]?.submit).toBeUndefined();
  });

  it('tells the person privately, through the shortcut’s response_url, when Slack does not open the form', async () => {
    unit().slack.fail('views.open', { error: 'expired_trigger_id' });
    await click();
    expect(JSON.stringify(unit().slack.callsTo('response_url:shortcut'))).toContain('expired_trigger_id');
  });
});

describe('the shortcut form’s submission door', () => {
  const unit = useAgentUnit({ MINTLIFY_CHANNEL_PROJECTS: 'C234GENERAL:proj_b' });
  const origin = { channel: CHANNEL_ID, threadTs: '1700000000.000100', permalink: 'https://acme.slack.com/p1' };
  const view = { callback_id: 'agent_from_message', private_metadata: JSON.stringify(origin) };

  async function submit(instruction: string | null, project?: string, rule = OPEN) {
    const body = viewSubmission(view, instruction, project);
    const { ack, calls } = recordingAck();
    const context = await contextFor(rule, body);
    const args = { ack, body, view: body.view, context };
    await shortcutSubmission(
      {
        ...unit().deps,
        config: {
          ...unit().deps.config,
          allowedUsers: [...rule.allowedUsers],
          allowedChannels: [...rule.allowedChannels],
        },
      },
      args as never,
    );
    return { acked: calls, handed: unit().handed };
  }

  it('closes the form and hands on the instruction, the message and the project picked', async () => {
    const { acked, handed } = await submit('Fix the retry count', 'proj_b');
    expect(acked).toEqual([undefined]);
    expect(handed).toEqual([
      {
        kind: 'agent.shortcut',
        data: { userId: USER_ID, origin, instruction: 'Fix the retry count', project: 'proj_b' },
      },
    ]);
  });

  it('uses the channel’s project when the one picked is unknown', async () => {
    const { handed } = await submit('Fix it', 'proj_nope');
    expect(handed[0]?.data).toMatchObject({ project: 'proj_test' });
  });

  it('keeps the form open with a field error for an empty instruction, or a person not allowed there', async () => {
    expect((await submit('  ')).acked).toEqual([
      { response_action: 'errors', errors: { instruction: 'Write what the agent should do.' } },
    ]);
    const refused = await submit('Fix it', undefined, CLOSED);
    expect(JSON.stringify(refused.acked)).toContain('not allowed');
    expect(refused.handed).toEqual([]);
  });
});
