import { describe, expect, it } from 'vitest';
import { handleTurn } from '../../../src/agent/handle-turn.js';
import { paneCopy } from '../../../src/agent/messages.js';
import { runPaneTurn } from '../../../src/agent/pane.js';
import { createQuota, HOURLY_LIMIT } from '../../../src/agent/quota.js';
import { CHANNEL_ID, USER_ID } from '../../fixtures/slack.js';
import { TEST_PROJECT_ID } from '../../support/test-app.js';
import { storeDown, typed, useAgentUnit } from './support.js';

describe('runPaneTurn', () => {
  const unit = useAgentUnit({ MINTLIFY_CHANNEL_PROJECTS: `${CHANNEL_ID}:proj_b` });

  /** A pane opened next to `CHANNEL_ID`, and a person's message in its thread, as the door hands it on. */
  function inPane(text: string, overrides: Parameters<typeof typed>[2] = {}) {
    const { thread } = unit().slack.people.opensAssistant(USER_ID, { context: CHANNEL_ID });
    const turn = typed(unit().slack, text, { channel: thread.channel, threadTs: thread.threadTs, ...overrides });
    return { thread, turn };
  }
  const postsIn = (threadTs: string) =>
    unit()
      .slack.callsTo('chat.postMessage')
      .filter((c) => c.args.thread_ts === threadTs);

  it('at the hourly limit: the status it set is cleared by the refusal, posted in the pane’s thread', async () => {
    const quota = createQuota(unit().deps.store);
    for (let i = 0; i < HOURLY_LIMIT; i++) await quota.take('proj_b', 'create');
    const { thread, turn } = inPane('Document <retries>');
    await runPaneTurn(unit().deps, { turn, contextChannel: CHANNEL_ID }, handleTurn);
    expect(thread.statuses).toEqual([paneCopy.starting]);
    expect(thread.status).toBeUndefined();
    expect(thread.title).toBe('Document <retries>');
    const [refusal] = postsIn(thread.threadTs);
    expect(refusal?.args.text).toContain('next slot opens');
    expect(refusal?.args.text).toContain('>Document &lt;retries&gt;');
    expect(unit().slack.callsTo('chat.postEphemeral')).toEqual([]);
  });

  it('titles the thread with the instruction, its bidirectional and control characters shown as marks', async () => {
    const { thread, turn } = inPane('Rename \u202Etxt.exe\u202C\u0007 now');
    await runPaneTurn(unit().deps, { turn, contextChannel: CHANNEL_ID }, handleTurn);
    expect(thread.title).toBe('Rename \uFFFDtxt.exe\uFFFD\uFFFD now');
  });

  it('a person the allow-lists leave out: refused in the thread, no status, no title', async () => {
    const { thread, turn } = inPane('Document webhooks', { allowed: false });
    await runPaneTurn(unit().deps, { turn, contextChannel: CHANNEL_ID }, handleTurn);
    expect(thread.statuses).toEqual([]);
    expect(thread.title).toBeUndefined();
    expect(postsIn(thread.threadTs)[0]?.args.text).toContain('not allowed');
  });

  it('a message without words starts nothing: no status, no title', async () => {
    const { thread, turn } = inPane(':tada: !!');
    await runPaneTurn(unit().deps, { turn, contextChannel: CHANNEL_ID }, handleTurn);
    expect(thread.statuses).toEqual([]);
    expect(thread.title).toBeUndefined();
    expect(unit().sim.requests).toHaveLength(0);
  });

  it('without a channel next to the pane, the default project', async () => {
    const { turn } = inPane('Document webhooks');
    await runPaneTurn(unit().deps, { turn }, handleTurn);
    const job = await unit().deps.store.jobs.forThread([TEST_PROJECT_ID], turn.channel, turn.threadTs ?? '');
    expect(job?.project).toBe(TEST_PROJECT_ID);
  });

  it('`my jobs` without the store: says so with the words echoed, in the thread', async () => {
    const { thread, turn } = inPane('my jobs');
    await runPaneTurn({ ...unit().deps, store: storeDown() }, { turn, contextChannel: CHANNEL_ID }, handleTurn);
    const [answer] = postsIn(thread.threadTs);
    expect(answer?.args.text).toContain('storage is unavailable');
    expect(answer?.args.text).toContain('>my jobs');
  });
});
