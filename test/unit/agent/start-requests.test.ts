import { describe, expect, it } from 'vitest';
import { HOURLY_LIMIT } from '../../../src/agent/quota.js';
import { runCommandStart, runShortcutStart } from '../../../src/agent/start-requests.js';
import { CHANNEL_ID, USER_ID } from '../../fixtures/slack.js';
import { createdPrompts, ephemeralsFor, useAgentUnit } from './support.js';

describe('the agent’s tasks', () => {
  const unit = useAgentUnit();

  const prompts = () => createdPrompts(unit().sim);

  describe('runCommandStart (/agent)', () => {
    const request = () => ({
      project: 'proj_test',
      prompt: 'Document <retries>',
      audience: { userId: USER_ID, channel: CHANNEL_ID, responseUrl: unit().slack.responseUrl('cmd') },
    });

    it('starts the job in a new message of the channel, saying nothing else', async () => {
      const { deps, slack } = unit();
      await runCommandStart(deps, request(), { id: 'run-1' });
      expect(prompts()).toEqual(['Document <retries>']);
      expect(slack.messages).toEqual([
        expect.objectContaining({ channel: CHANNEL_ID, text: expect.stringContaining('Document &lt;retries&gt;') }),
      ]);
      expect(slack.messages[0]?.thread_ts).toBeUndefined();
      expect(slack.callsTo('response_url:cmd')).toEqual([]);
    });

    it('answers a refusal through the command’s response_url (no membership needed), the instruction echoed', async () => {
      const { deps, slack } = unit();
      slack.fail('chat.postMessage', { error: 'not_in_channel' });
      await runCommandStart(deps, request(), { id: 'run-1' });
      const [answer] = slack.callsTo('response_url:cmd');
      expect(answer?.args).toMatchObject({ response_type: 'ephemeral', replace_original: false });
      expect(answer?.args.text).toContain("I can't post in this channel, so I didn't start the job.");
      expect(answer?.args.text).toContain('>Document &lt;retries&gt;');
      expect(prompts()).toEqual([]);
    });
  });

  describe('runShortcutStart (the message shortcut’s form)', () => {
    const origin = { channel: CHANNEL_ID, threadTs: '1700000000.000100', permalink: 'https://acme.slack.com/p1' };
    const submission = { userId: USER_ID, origin, instruction: 'Fix <the> page', project: 'proj_test' };

    it('starts the job in the message’s thread, with the message’s link after the instruction', async () => {
      const { deps, slack } = unit();
      await runShortcutStart(deps, submission, { id: 'run-1' });
      expect(prompts()).toEqual(['Fix <the> page\n\nSlack message this request is about: https://acme.slack.com/p1']);
      expect(slack.messages).toEqual([expect.objectContaining({ channel: CHANNEL_ID, thread_ts: origin.threadTs })]);
      expect(slack.ephemerals).toEqual([]);
    });

    it('answers a refusal privately in that thread, the instruction echoed', async () => {
      const { deps, slack } = unit();
      for (let i = 0; i < HOURLY_LIMIT; i++) await deps.quota.take('proj_test', 'create');
      await runShortcutStart(deps, submission, { id: 'run-1' });
      expect(slack.ephemerals).toEqual([expect.objectContaining({ user: USER_ID, thread_ts: origin.threadTs })]);
      const [answer] = ephemeralsFor(slack);
      expect(answer).toContain('reached its limit of new jobs');
      expect(answer).toContain('>Fix &lt;the&gt; page');
      expect(prompts()).toEqual([]);
    });
  });
});
