import { describe, expect, it } from 'vitest';
import { agentTasks } from '../../src/agent/agent-tasks.js';
import { WORK } from '../../src/app/app.js';
import { answerUnrun, createDispatch, runTask } from '../../src/app/dispatch.js';
import { homeTasks } from '../../src/home/home-tasks.js';
import { USER_ID } from '../fixtures/slack.js';
import { useAgentUnit } from './agent/support.js';

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
