import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { agentCommand } from '../../../../src/agent/doors/command.js';
import type { AccessRule } from '../../../../src/slack/access.js';
import { CHANNEL_ID, slashCommand, USER_ID } from '../../../fixtures/slack.js';
import { contextFor, recordingAck, useAgentUnit } from '../support.js';

type Args = SlackCommandMiddlewareArgs & AllMiddlewareArgs;
const OPEN: AccessRule = { allowedUsers: [], allowedChannels: [] };

describe('the /agent door', () => {
  const unit = useAgentUnit();

  /** `/agent <typed>` as Slack sends it, through the door; what it acked and handed on. */
  async function run(typed: unknown, fields: Record<string, string> = {}, rule = OPEN) {
    const command = { ...slashCommand({ text: typeof typed === 'string' ? typed : '', ...fields }) } as Record<
      string,
      unknown
    >;
    if (typeof typed !== 'string') command.text = typed;
    const { ack, calls } = recordingAck();
    const context = await contextFor(rule, command);
    await agentCommand(unit().deps, { command, ack, context } as unknown as Args);
    return { acked: calls, handed: unit().handed };
  }

  it('acks at once and hands on the instruction decoded, with the channel’s project and where to answer', async () => {
    const { acked, handed } = await run('Document <b> & the @bob retry page', {
      response_url: 'http://127.0.0.1:9/r1',
    });
    expect(acked).toEqual([undefined]);
    expect(handed).toEqual([
      {
        kind: 'agent.start',
        data: {
          project: 'proj_test',
          prompt: 'Document <b> & the @bob retry page',
          audience: { userId: USER_ID, channel: CHANNEL_ID, responseUrl: 'http://127.0.0.1:9/r1' },
        },
      },
    ]);
  });

  it.each(['', 'help', ' HELP '])('answers %j with usage in the ack, handing nothing on', async (typed) => {
    const { acked, handed } = await run(typed);
    expect(acked).toEqual([
      expect.objectContaining({
        response_type: 'ephemeral',
        text: expect.stringContaining('/agent &lt;instruction&gt;'),
      }),
    ]);
    expect(handed).toEqual([]);
  });

  it('refuses an unknown project in the ack, echoing the instruction', async () => {
    const { acked, handed } = await run('--project nope Fix <the> links');
    expect(JSON.stringify(acked)).toContain("I don't serve a project `nope`");
    expect(JSON.stringify(acked)).toContain('Fix &lt;the&gt; links');
    expect(handed).toEqual([]);
  });

  it('hands on a chosen project’s instruction decoded, the option read from what Slack sent', async () => {
    const { acked, handed } = await run('--project proj_test Fix <the> & links');
    expect(acked).toEqual([undefined]);
    expect(handed).toEqual([
      { kind: 'agent.start', data: expect.objectContaining({ project: 'proj_test', prompt: 'Fix <the> & links' }) },
    ]);
  });

  it('refuses `--project` without an id in the ack, echoing what was typed decoded', async () => {
    const { acked, handed } = await run('--project= Fix <the> links');
    expect(JSON.stringify(acked)).toContain('--project= Fix &lt;the&gt; links');
    expect(JSON.stringify(acked)).not.toContain('&amp;lt;');
    expect(handed).toEqual([]);
  });

  it('refuses a person outside the allow-lists in the ack, with their instruction decoded and echoed', async () => {
    const { acked, handed } = await run('Fix <the> links', {}, { allowedUsers: ['USOMEONE'], allowedChannels: [] });
    expect(JSON.stringify(acked)).toContain('not allowed to use the Mintlify agent here');
    expect(JSON.stringify(acked)).toContain('Fix &lt;the&gt; links');
    expect(handed).toEqual([]);
    expect(unit().logs.text()).toContain('"event":"agent.refused"');
  });

  it.each([
    ['no user', { user_id: '' }],
    ['no channel', { channel_id: '' }],
  ])('refuses a command with %s before anything else', async (_case, fields) => {
    const { acked, handed } = await run('Fix the links', fields);
    expect(JSON.stringify(acked)).toContain('I could not tell who ran this command or where');
    expect(handed).toEqual([]);
  });

  it('reads a repeated text field (an array) as no text: usage', async () => {
    const { acked, handed } = await run(['a', 'b']);
    expect(JSON.stringify(acked)).toContain('/agent &lt;instruction&gt;');
    expect(handed).toEqual([]);
  });
});
