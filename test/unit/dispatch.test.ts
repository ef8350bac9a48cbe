import { describe, expect, it } from 'vitest';
import { agentTasks } from '../../src/agent/agent-tasks.js';
import { postRootMessage } from '../../src/agent/root-post.js';
import { recordAttempt } from '../../src/agent/start-attempt.js';
import { startJob } from '../../src/agent/start-job.js';
import { WORK } from '../../src/app/app.js';
import { answerUnrun, createDispatch, runTask } from '../../src/app/dispatch.js';
import { homeTasks } from '../../src/home/home-tasks.js';
import { TASK_MAX_AGE_MS, TaskDeferred } from '../../src/task.js';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { createdPrompts, readable, useAgentUnit } from './agent/support.js';

/** Each failure is the step's last (the door lanes try once). */
const LAST = () => true;
const RUN = { id: 'run-1' };

describe('createDispatch and runTask', () => {
  const unit = useAgentUnit();

  it('hands a door’s work to its kind’s lane, as a job that names its kind', async () => {
    const dispatch = createDispatch(() => unit().deps, WORK);
    await dispatch(homeTasks.opened, { userId: USER_ID, tab: 'home' });
    expect(await unit().engine.counts('agent')).toMatchObject({ waiting: 1 });
  });

  it('tells the person at once, with their text, when the lane cannot take the work (its store does not answer)', async () => {
    const { deps, engine, slack } = unit();
    await engine.close(0);
    const dispatch = createDispatch(() => deps, WORK);
    const audience = { userId: USER_ID, channel: 'C123DOCS', responseUrl: slack.responseUrl('cmd') };
    await dispatch(agentTasks.start, { project: 'proj_test', prompt: 'Document <retries>', audience });
    expect(String(slack.callsTo('response_url:cmd')[0]?.args.text)).toContain('storage is unavailable');
    expect(String(slack.callsTo('response_url:cmd')[0]?.args.text)).toContain('Document &lt;retries&gt;');
    expect(unit().logs.text()).toMatch(/"event":"queue\.unavailable".*"kind":"agent\.start"/);
  });

  it('runs a handed-on task where the lane is worked: opening the Home tab publishes it', async () => {
    await runTask(
      unit().deps,
      WORK,
      { kind: 'home.opened', workspace: { teamId: '' }, data: { userId: USER_ID, tab: 'home' } },
      LAST,
      RUN,
    );
    expect(unit().slack.views).toEqual([expect.objectContaining({ via: 'views.publish', user_id: USER_ID })]);
  });

  it('refuses data that is not its kind’s, and a kind it does not know (a bug, shown in the lane’s failed set)', async () => {
    await expect(
      runTask(unit().deps, WORK, { kind: 'agent.start', workspace: { teamId: '' }, data: { prompt: 1 } }, LAST, RUN),
    ).rejects.toThrow();
    await expect(
      runTask(unit().deps, WORK, { kind: 'no.such', workspace: { teamId: '' }, data: {} }, LAST, RUN),
    ).rejects.toThrow('unknown task kind no.such');
  });

  /** `/agent Document <retries>` handed on, with Mintlify's client throwing (a bug). */
  function failingStart() {
    const { deps, slack, logs } = unit();
    deps.mintlify.createJob = async () => {
      throw new Error('bug');
    };
    const audience = { userId: USER_ID, channel: 'C123DOCS', responseUrl: slack.responseUrl('cmd') };
    const data = { project: 'proj_test', prompt: 'Document <retries>', audience };
    return { deps, slack, logs, envelope: { kind: 'agent.start', workspace: { teamId: '' }, data } };
  }

  it('answers the person on an unexpected throw, in the agent’s words, and fails the job (one policy for every task)', async () => {
    const { deps, slack, logs, envelope } = failingStart();
    await expect(runTask(deps, WORK, envelope, LAST, RUN)).rejects.toThrow('bug');
    const said = String(slack.callsTo('response_url:cmd')[0]?.args.text);
    expect(said).toContain('Something went wrong on my side');
    expect(said).toContain('Document &lt;retries&gt;');
    expect(logs.text()).toMatch(/"event":"task\.failed".*"kind":"agent\.start"/);
  });

  it('answers the person on an unexpected throw in the visitors’ words too', async () => {
    const { deps, slack, logs } = unit();
    deps.mintlify.getVisitors = async () => {
      throw new Error('bug');
    };
    const audience = { userId: USER_ID, channel: 'C123DOCS', responseUrl: slack.responseUrl('cmd') };
    const query = { from: '2026-11-01', to: '2026-11-08', limit: 10, offset: 0 };
    const data = { query, project: 'proj_test', audience };
    await expect(
      runTask(deps, WORK, { kind: 'visitors.report', workspace: { teamId: '' }, data }, LAST, RUN),
    ).rejects.toThrow('bug');
    expect(String(slack.callsTo('response_url:cmd')[0]?.args.text)).toContain('Something went wrong on my side');
    expect(logs.text()).toMatch(/"event":"task\.failed".*"kind":"visitors\.report"/);
  });

  it('says nothing to the person while the lane has tries left, and fails the try so the engine tries again', async () => {
    const { deps, slack, logs, envelope } = failingStart();
    await expect(runTask(deps, WORK, envelope, () => false, RUN)).rejects.toThrow('bug');
    expect(slack.callsTo('response_url:cmd')).toEqual([]);
    expect(logs.text()).toMatch(/"event":"task\.failed".*"last_try":false/);
  });

  it('logs work another run is doing (TaskDeferred) as deferred, not failed, and still fails the try', async () => {
    const { deps, slack, logs, envelope } = failingStart();
    deps.mintlify.createJob = async () => {
      throw new TaskDeferred('another run of it is under way');
    };
    await expect(runTask(deps, WORK, envelope, () => false, RUN)).rejects.toThrow('under way');
    expect(slack.callsTo('response_url:cmd')).toEqual([]);
    expect(logs.text()).toMatch(/"level":"info","event":"task\.deferred","kind":"agent\.start"/);
    expect(logs.text()).not.toContain('"level":"error"');
  });

  it('answers the person of a task the engine failed unrun (its worker kept dying), in the task’s failed words', async () => {
    const { deps, slack } = unit();
    const audience = { userId: USER_ID, channel: 'C123DOCS', responseUrl: slack.responseUrl('cmd') };
    const data = { project: 'proj_test', prompt: 'Document <retries>', audience };
    await answerUnrun(deps, WORK, { kind: 'agent.start', workspace: { teamId: '' }, data }, 'failed');
    const said = String(slack.callsTo('response_url:cmd')[0]?.args.text);
    expect(said).toContain('Something went wrong on my side');
    expect(said).toContain('Document &lt;retries&gt;');
  });

  it('answers a Stop pressed on a job that was not stopped with how to press it again, not a command to copy', async () => {
    const { deps, slack } = unit();
    const data = { userId: USER_ID, channel: 'C123DOCS', threadTs: '1700000000.000100', allowed: true };
    await answerUnrun(deps, WORK, { kind: 'agent.stop', workspace: { teamId: '' }, data }, 'failed');
    const said = String(slack.callsTo('chat.postEphemeral')[0]?.args.text);
    expect(said).toContain('The job was not stopped: something went wrong on my side. Press Stop on it again');
    expect(said).not.toContain('/agent stop');
  });
});

describe('a start that is not run again after its first run died (failed unrun, or taken over too late)', () => {
  const unit = useAgentUnit({ SLACK_PLAN_CARD: 'true' });
  const PROMPT = 'Document <retries>';

  function envelope(queuedAt: number) {
    const { slack } = unit();
    const audience = { userId: USER_ID, channel: CHANNEL_ID, responseUrl: slack.responseUrl('cmd') };
    const data = { project: 'proj_test', prompt: PROMPT, audience };
    return { kind: 'agent.start', workspace: { teamId: '' }, data, queuedAt };
  }
  const ways = {
    'failed unrun (its worker died on each take-over)': () =>
      answerUnrun(unit().deps, WORK, envelope(unit().deps.now()), 'failed', RUN),
    'taken over after TASK_MAX_AGE_MS (expired)': () =>
      runTask(unit().deps, WORK, envelope(unit().deps.now() - TASK_MAX_AGE_MS - 1), LAST, RUN),
  };

  it.each(Object.entries(ways))('%s: its card is ended, the person hears it may have started', async (_, way) => {
    const { deps, slack, sim } = unit();
    // What the dead run left: its card streaming, its attempt kept, no job bound.
    const pending = { project: 'proj_test', userId: USER_ID, prompt: PROMPT };
    const posted = await postRootMessage(deps, { ...pending, channel: CHANNEL_ID, showProject: false });
    if (!posted.ok) throw new Error(posted.code);
    await recordAttempt(deps, RUN.id, {
      ...pending,
      channel: CHANNEL_ID,
      ts: posted.ts,
      threadTs: posted.ts,
      card: true,
    });

    await way();
    expect(slack.streamShown(CHANNEL_ID, posted.ts)).toBe('final');
    expect(readable(slack.tenant().message(CHANNEL_ID, posted.ts))).toContain('it may have started');
    const said = String(slack.callsTo('response_url:cmd')[0]?.args.text);
    expect(said).toContain('I cannot tell whether the agent started it');
    expect(said).toContain('Document &lt;retries&gt;');
    expect(said).not.toContain('nothing was done');
    expect(createdPrompts(sim)).toEqual([]);
  });

  it.each(Object.entries(ways))(
    '%s: a job its first run bound is tracked, nobody told it was not done',
    async (_, way) => {
      const { deps, slack, sim, tracked } = unit();
      const first = await startJob(deps, {
        project: 'proj_test',
        userId: USER_ID,
        channel: CHANNEL_ID,
        prompt: PROMPT,
        attempt: RUN.id,
      });
      if (!first.ok) throw new Error('refused');

      await way();
      expect(slack.callsTo('response_url:cmd')).toEqual([]);
      expect(tracked.at(-1)).toEqual({ project: 'proj_test', jobId: first.record.jobId });
      expect(createdPrompts(sim)).toEqual([PROMPT]);
    },
  );

  it('a mention’s start failed unrun: its root is ended, the person hears it may have started', async () => {
    const { deps, slack } = unit();
    const turn = { channel: CHANNEL_ID, ts: '1700000000.000200', userId: USER_ID, text: PROMPT, eventId: 'Ev1' };
    const data = { ...turn, addressed: true, allowed: true };
    const pending = { project: 'proj_test', userId: USER_ID, prompt: PROMPT };
    const posted = await postRootMessage(deps, {
      ...pending,
      channel: CHANNEL_ID,
      threadTs: turn.ts,
      showProject: false,
    });
    if (!posted.ok) throw new Error(posted.code);
    const root = { channel: CHANNEL_ID, ts: posted.ts, threadTs: turn.ts, card: posted.card === true };
    await recordAttempt(deps, `${CHANNEL_ID}:${turn.ts}`, { ...root, ...pending });

    await answerUnrun(deps, WORK, { kind: 'agent.turn', workspace: { teamId: '' }, data }, 'failed', RUN);
    expect(readable(slack.tenant().message(CHANNEL_ID, posted.ts))).toContain('it may have started');
    const said = String(slack.callsTo('chat.postEphemeral')[0]?.args.text);
    expect(said).toContain('I cannot tell whether the agent started it');
    expect(said).not.toContain('Something went wrong');
  });

  it('a start with no earlier run, taken over too late, is answered as expired', async () => {
    await runTask(unit().deps, WORK, envelope(unit().deps.now() - TASK_MAX_AGE_MS - 1), LAST, RUN);
    expect(String(unit().slack.callsTo('response_url:cmd')[0]?.args.text)).toContain('nothing was done');
  });
});
