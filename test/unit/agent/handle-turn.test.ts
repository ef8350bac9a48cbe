import { describe, expect, it, vi } from 'vitest';
import { handleTurn, type Place, type Route, routeOf } from '../../../src/agent/handle-turn.js';
import { startJob } from '../../../src/agent/start-job.js';
import { CHANNEL_ID, USER_ID } from '../../fixtures/slack.js';
import {
  createdPrompts,
  ephemeralsFor,
  followUpPrompts,
  reactionsOn,
  startedJob,
  storeDown,
  typed,
  useAgentUnit,
} from './support.js';

const PROJECT = 'proj_test';
const JOB: Place = { kind: 'job', job: { project: PROJECT, jobId: 'job_1', threadTs: '1.0' }, thread: 'own' };
const JOINED: Place = { ...JOB, thread: 'joined' } as Place;
const STARTING: Place = { kind: 'starting', thread: 'own' };
const REPLY = { addressed: false, mentionsBot: false };
const MENTION = { addressed: true, mentionsBot: true };
const DM = { addressed: true, mentionsBot: false };

describe('routeOf', () => {
  it.each<[string, Place, typeof REPLY, string, Route]>([
    ['an instruction to the bot outside a job’s thread starts a job', { kind: 'none' }, MENTION, 'Fix it', 'start'],
    ['a bare mention outside a job’s thread is answered (with usage)', { kind: 'none' }, MENTION, '', 'start'],
    ['a mention of emoji alone outside a job’s thread is ignored', { kind: 'none' }, MENTION, ':tada: 🎉!', 'ignore'],
    ['chatter outside a job’s thread is none of the bot’s business', { kind: 'none' }, REPLY, 'lunch?', 'ignore'],
    ['any words in the bot’s own thread follow the job up', JOB, REPLY, 'Also the table', 'follow_up'],
    ['a DM reply in the job’s own thread follows it up', JOB, DM, 'Also the table', 'follow_up'],
    ['a mention in a job’s thread follows it up, never starts another', JOB, MENTION, 'Also the table', 'follow_up'],
    ['an empty message in a job’s thread is ignored', JOB, MENTION, '', 'ignore'],
    ['emoji alone in the bot’s own thread are ignored', JOB, REPLY, ':tada: :+1::skin-tone-2:', 'ignore'],
    ['punctuation and emoji alone in the bot’s own thread are ignored', JOB, REPLY, '🎉 !!! 👍🏽', 'ignore'],
    ['a reply in a thread the job joined is chatter', JOINED, REPLY, 'thanks!', 'ignore'],
    ['a mention in a thread the job joined follows it up', JOINED, MENTION, 'also the FAQ', 'follow_up'],
    ['a mention of emoji alone in a joined thread is ignored', JOINED, MENTION, ':tada:', 'ignore'],
    ['words while the thread’s job starts are answered "still starting"', STARTING, REPLY, 'And', 'still_starting'],
    ['an empty message while the job starts is ignored', STARTING, MENTION, '', 'ignore'],
    [
      'a reply while a joined thread’s job starts is chatter',
      { kind: 'starting', thread: 'joined' },
      REPLY,
      'nice',
      'ignore',
    ],
    [
      'words in the thread of a project no longer connected are told so',
      { kind: 'disconnected', project: PROJECT, thread: 'own' },
      REPLY,
      'Also the table',
      'not_connected',
    ],
    [
      'a reply in a joined thread of a project no longer connected is chatter',
      { kind: 'disconnected', project: PROJECT, thread: 'joined' },
      REPLY,
      'thanks!',
      'ignore',
    ],
    ['without the store, an addressed message is told so', { kind: 'unknown' }, MENTION, 'Fix it', 'store_unavailable'],
    ['without the store, an unaddressed message stays unanswered', { kind: 'unknown' }, REPLY, 'lunch?', 'ignore'],
  ])('%s', (_behaviour, place, how, text, route) => {
    expect(routeOf(place, { ...how, text })).toBe(route);
  });

  it.each<[string, Place, typeof REPLY, Route]>([
    ['a reply in the bot’s own thread', JOB, REPLY, 'ignore'],
    ['a DM reply in the job’s thread', JOB, DM, 'ignore'],
    ['a mention in the bot’s own thread', JOB, MENTION, 'follow_up'],
    ['a mention in a joined thread', JOINED, MENTION, 'follow_up'],
  ])('with AGENT_FOLLOW_UPS=mention, %s: %s', (_where, place, how, route) => {
    expect(routeOf(place, { ...how, text: 'Also the table' }, 'mention')).toBe(route);
  });
});

describe('handleTurn', () => {
  const unit = useAgentUnit();

  /** A job `USER_ID` started with /agent: its thread is the root message's. */
  const jobThread = async () => (await startedJob(unit().deps, PROJECT, 'Go')).threadTs;
  const creates = () => createdPrompts(unit().sim).length;
  const followUps = () => followUpPrompts(unit().sim);

  it('passes a reply in a job’s thread on to its agent: 👀 while handing it over, then ✅', async () => {
    const { deps, slack } = unit();
    const turn = typed(slack, 'Also the <backoff> table', { threadTs: await jobThread(), addressed: false });
    await handleTurn(deps, turn);
    expect(followUps()).toEqual(['Also the <backoff> table']);
    expect(reactionsOn(slack, turn.ts)).toEqual(['+eyes', '-eyes', '+white_check_mark']);
    expect(ephemeralsFor(slack)).toEqual([]);
  });

  it('marks a refused follow-up ❌ and tells the writer privately why, their text echoed', async () => {
    const { deps, slack, sim } = unit();
    const threadTs = await jobThread();
    const [jobId] = await deps.store.jobs.active(PROJECT);
    sim.deleteJob(jobId as string);
    const turn = typed(slack, 'Also the <backoff> table', { threadTs, addressed: false });
    await handleTurn(deps, turn);
    expect(reactionsOn(slack, turn.ts)).toEqual(['+eyes', '-eyes', '+x']);
    const [note] = ephemeralsFor(slack);
    expect(note).toContain('This job no longer exists on Mintlify, so the follow-up was not sent.');
    expect(note).toContain('>Also the &lt;backoff&gt; table');
    expect(slack.ephemerals[0]?.thread_ts).toBe(threadTs);
  });

  it.each([
    ['a reply in a thread that is not a job’s', { threadTs: '1700000000.000100' }],
    ['a top-level message', {}],
  ])('leaves %s that does not address the bot alone: no call, no answer', async (_case, where) => {
    const { deps, slack, sim } = unit();
    await handleTurn(deps, typed(slack, 'lunch?', { ...where, addressed: false }));
    expect(slack.calls).toEqual([]);
    expect(sim.requests).toEqual([]);
  });

  it('answers a reply in a thread whose job is still starting privately, with the text, and starts nothing else', async () => {
    const { deps, slack, sim } = unit();
    const asked = slack.postAs('U456BOB', CHANNEL_ID, 'The retry page is wrong');
    sim.injectFault({ kind: 'slow', delayMs: 300, count: 1, match: { operation: 'create' } });
    const input = { project: PROJECT, userId: USER_ID, channel: CHANNEL_ID, prompt: 'Fix it', threadTs: asked.ts };
    const starting = startJob(deps, input);
    await vi.waitFor(() => expect(creates()).toBe(1));
    await handleTurn(deps, typed(slack, 'Use <5> tries', { threadTs: asked.ts, addressed: false }));
    const [note] = ephemeralsFor(slack);
    expect(note).toContain('The job in this thread is still starting');
    expect(note).toContain('>Use &lt;5&gt; tries');
    expect((await starting).ok).toBe(true);
    expect(creates()).toBe(1);
    expect(followUps()).toEqual([]);
  });

  it.each([
    ['a mention outside a job’s thread', async () => ({ addressed: true })],
    [
      'a reply in a job’s thread',
      async (thread: () => Promise<string>) => ({ threadTs: await thread(), addressed: false }),
    ],
  ])('refuses %s from a person not allowed, privately, their text echoed', async (_case, where) => {
    const { deps, slack, logs } = unit();
    const turn = typed(slack, 'Fix <it>', { ...(await where(jobThread)), allowed: false });
    const before = { creates: creates(), messages: slack.messages.length };
    await handleTurn(deps, turn);
    const [note] = ephemeralsFor(slack);
    expect(note).toContain('you are not allowed to use the Mintlify agent here');
    expect(note).toContain('>Fix &lt;it&gt;');
    expect({ creates: creates(), messages: slack.messages.length }).toEqual(before);
    expect(followUps()).toEqual([]);
    expect(logs.text()).toContain('"event":"agent.refused"');
  });

  it.each([
    ['redelivered by Slack (same event, a retry)', { retryNum: 1 }],
    // In a thread, a mention also arrives as a reply: by then its job is bound there, so it would read as a follow-up.
    ['arriving again as its thread reply (same message, its own event)', { eventId: 'EvTWIN', addressed: false }],
  ])('starts one job for a mention in a thread, %s', async (_case, again) => {
    const { deps, slack, logs } = unit();
    const asked = slack.postAs('U456BOB', CHANNEL_ID, 'The CLI has no docs');
    const turn = typed(slack, 'Document the CLI', { threadTs: asked.ts });
    await handleTurn(deps, turn);
    await handleTurn(deps, { ...turn, ...again });
    expect(creates()).toBe(1);
    expect(followUps()).toEqual([]);
    expect(slack.messages.filter((m) => m.user === 'UBOT' && m.thread_ts === asked.ts)).toHaveLength(1);
    expect(logs.text()).toContain('"event":"agent.duplicate_event"');
  });

  it('passes a message in a job’s thread on once when both its events arrive', async () => {
    const { deps, slack } = unit();
    const turn = typed(slack, 'Also the table', { threadTs: await jobThread() });
    await handleTurn(deps, turn);
    await handleTurn(deps, { ...turn, eventId: 'EvTWIN', addressed: false });
    expect(followUps()).toEqual(['Also the table']);
    expect(reactionsOn(slack, turn.ts)).toEqual(['+eyes', '-eyes', '+white_check_mark']);
  });

  it('without the store, tells a person who wrote to the bot in a thread that it cannot take this on', async () => {
    const { deps, slack, sim } = unit();
    const turn = typed(slack, 'Fix <it>', { threadTs: '1700000000.000100' });
    await handleTurn({ ...deps, store: storeDown() }, turn);
    const [note] = ephemeralsFor(slack);
    expect(note).toContain('My storage is unavailable right now, so I could not take this on.');
    expect(note).toContain('>Fix &lt;it&gt;');
    expect(sim.requests).toEqual([]);
  });

  it('without the store, marks a new instruction ❌ and says so: a first delivery cannot be told from a retry', async () => {
    const { deps, slack, sim } = unit();
    const turn = typed(slack, 'Fix <it>');
    await handleTurn({ ...deps, store: storeDown() }, turn);
    expect(reactionsOn(slack, turn.ts)).toEqual(['+x']);
    expect(ephemeralsFor(slack)).toEqual([expect.stringContaining('My storage is unavailable right now')]);
    expect(sim.requests).toEqual([]);
  });

  it('without the store, stays silent on a reply that does not address the bot', async () => {
    const { deps, slack, sim } = unit();
    await handleTurn({ ...deps, store: storeDown() }, typed(slack, 'lunch?', { threadTs: '1.0', addressed: false }));
    expect(slack.calls).toEqual([]);
    expect(sim.requests).toEqual([]);
  });
});
