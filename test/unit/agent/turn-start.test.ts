import { describe, expect, it } from 'vitest';
import { startFromTurn } from '../../../src/agent/handle-turn.js';
import { HOURLY_LIMIT } from '../../../src/agent/quota.js';
import type { Turn } from '../../../src/agent/requests.js';
import { CHANNEL_ID, USER_ID } from '../../fixtures/slack.js';
import { createdPrompts, ephemeralsFor, readable, typed, useAgentUnit } from './support.js';

const DM = 'DALICE';

describe('startFromTurn', () => {
  const unit = useAgentUnit();

  /** The turn, started as its conversational door's task does, answering where the person wrote. */
  const start = (turn: Turn) =>
    startFromTurn(unit().deps, turn, { channel: turn.channel, userId: turn.userId, threadTs: turn.threadTs });
  const prompts = () => createdPrompts(unit().sim);
  // Posted through the Web API, as only the bot's messages are (`postAs` stores what people write).
  // The app's latest post in the thread (a test may have put an earlier one of the bot's there).
  const rootOf = (threadTs: string) => unit().slack.messages.findLast((m) => m.bot_id && m.thread_ts === threadTs);

  it.each([
    ['a bare mention', '', 'Ask the Mintlify agent to work on the docs'],
    ['`help`', 'help', 'Ask the Mintlify agent to work on the docs'],
    ['`projects`', 'projects', 'This channel uses project `proj_test`.'],
    ['an unknown project', '--project nope Fix <it>', "I don't serve a project `nope`, so I did not start the job."],
  ])('answers %s privately, in the thread, and starts nothing', async (_case, text, words) => {
    const { slack } = unit();
    const turn = typed(slack, text, { threadTs: '1700000000.000100' });
    await start(turn);
    const [answer] = slack.ephemerals;
    expect(answer).toMatchObject({ user: USER_ID, channel: CHANNEL_ID, thread_ts: '1700000000.000100' });
    expect(answer?.text).toContain(words);
    expect(prompts()).toEqual([]);
  });

  it('echoes the instruction when refusing an unknown project, so it can be sent again', async () => {
    await start(typed(unit().slack, '--project nope Fix <it>'));
    expect(ephemeralsFor(unit().slack)).toEqual([expect.stringContaining('>Fix &lt;it&gt;')]);
  });

  it('starts from the instruction its door read already (the pane), without reading the text again', async () => {
    const { slack } = unit();
    const turn = typed(slack, 'Document the CLI', { channel: DM });
    const read = { kind: 'start', prompt: 'Document the CLI, as the pane read it', project: 'proj_test' } as const;
    await startFromTurn(unit().deps, turn, { channel: DM, userId: turn.userId }, read);
    expect(prompts()).toEqual(['Document the CLI, as the pane read it']);
    expect(slack.ephemerals).toEqual([]);
  });

  it('starts a job from a top-level DM in the message’s own thread, reading no thread', async () => {
    const { slack } = unit();
    const turn = typed(slack, 'Document the CLI', { channel: DM });
    await start(turn);
    expect(prompts()).toEqual(['Document the CLI']);
    expect(rootOf(turn.ts)).toMatchObject({ channel: DM });
    expect(slack.callsTo('conversations.replies')).toEqual([]);
    expect(slack.ephemerals).toEqual([]);
  });

  it('in a thread, sends the earlier messages as context (by name, decoded, not the bot’s) and notes it', async () => {
    const { slack } = unit();
    const asked = slack.postAs('U456BOB', CHANNEL_ID, 'The retry page says <5> tries, ask @carol');
    slack.postAs('UBOT', CHANNEL_ID, 'Usage: mention me with an instruction', { threadTs: asked.ts });
    const turn = typed(slack, 'Fix the retry page', { threadTs: asked.ts });
    slack.postAs('U456BOB', CHANNEL_ID, 'written after the request', { threadTs: asked.ts });
    await start(turn);
    const [prompt = ''] = prompts();
    expect(prompt.startsWith('Fix the retry page\n\n--- Context: the 1 earlier message of the Slack thread')).toBe(
      true,
    );
    expect(prompt).toContain('\nBob Lee: The retry page says <5> tries, ask @Carol Chen\n');
    expect(prompt).not.toContain('Usage');
    expect(prompt).not.toContain('written after');
    expect(readable(rootOf(asked.ts))).toContain('context: 1 earlier thread message');
  });

  it('starts the job on the instruction alone when the thread cannot be read, and logs why', async () => {
    const { slack, logs } = unit();
    const asked = slack.postAs('U456BOB', CHANNEL_ID, 'The retry page is wrong');
    slack.fail('conversations.replies', { error: 'missing_scope' });
    await start(typed(slack, 'Fix the retry page', { threadTs: asked.ts }));
    expect(prompts()).toEqual(['Fix the retry page']);
    expect(readable(rootOf(asked.ts))).not.toContain('context:');
    expect(logs.text()).toMatch(/"event":"slack\.thread_context_unavailable".*"slack_error":"missing_scope"/);
    expect(slack.ephemerals).toEqual([]);
  });

  it('tells the person privately, in the thread, why no job started, with their instruction', async () => {
    const { deps, slack } = unit();
    for (let i = 0; i < HOURLY_LIMIT; i++) await deps.quota.take('proj_test', 'create');
    await start(typed(slack, 'Fix <it>', { threadTs: '1700000000.000100' }));
    expect(slack.ephemerals).toEqual([
      expect.objectContaining({
        thread_ts: '1700000000.000100',
        text: expect.stringMatching(/reached its limit of new jobs[\s\S]*>Fix &lt;it&gt;/),
      }),
    ]);
  });
});
