import { describe, expect, it } from 'vitest';
import { planCardMessage, planTasks } from '../../../src/agent/plan-card.js';
import { blockKitProblems } from '../../../tools/slack-standin/index.js';
import { jobRecord } from '../../fixtures/job.js';

const record = jobRecord({ userId: 'U1', prompt: 'Document webhooks' });
const view = (tasks: ReturnType<typeof planTasks>) => tasks.map((t) => `${t.id}:${t.status}:${t.title}`);

describe('planTasks: a job’s phases as tasks', () => {
  it('before the job exists: creating, the agent and the pull request to come', () => {
    expect(view(planTasks({ project: 'p', userId: 'U1', prompt: 'x' }, 0))).toEqual([
      'created:in_progress:Creating the job',
      'working:pending:Agent working',
      'result:pending:Pull request',
    ]);
  });

  it('while it runs: where and with what it was created, the time elapsed, what Mintlify says when unknown', () => {
    const tasks = planTasks({ ...record, status: 'thinking_hard' }, record.roundStartedAtMs + 3 * 60_000);
    expect(tasks[0]?.title).toBe('Created on acme/docs@mintlify/agent-1 with claude');
    expect(tasks[1]).toEqual({
      id: 'working',
      title: 'Agent working · 3m elapsed',
      status: 'in_progress',
      details: 'Mintlify says thinking_hard',
    });
  });

  it('at its end: the pull request opened, or updated after a follow-up; a failure says why', () => {
    const opened = planTasks({ ...record, ended: 'pull_request', prLink: 'https://github.com/a/b/pull/1' }, 0);
    expect(view(opened).slice(1)).toEqual(['working:complete:Agent finished', 'result:complete:Pull request opened']);
    const updated = planTasks({ ...record, round: 1, ended: 'pull_request' }, 0);
    expect(view(updated)).toContain('follow_up:complete:Follow-up applied');
    expect(view(updated)).toContain('result:complete:Pull request updated');
    const failed = planTasks({ ...record, ended: 'failed' }, 0);
    expect(failed.map((t) => t.id)).toEqual(['created', 'working']);
    expect(failed[1]).toMatchObject({ status: 'error', title: 'Failed', details: expect.stringContaining('failed') });
  });

  it('a project no longer served: disconnected in App Home, or taken out of the app’s configuration', () => {
    const gone = { ...record, ended: 'disconnected' as const };
    expect(planTasks(gone, 0, 'reply', 'connected')[1]).toMatchObject({
      title: 'Tracking stopped: Mintlify disconnected',
      details:
        'This project is not connected to Mintlify in this workspace any more: once it is connected again, reply in the thread to pick it up again.',
    });
    expect(planTasks(gone, 0, 'mention', 'configured')[1]).toMatchObject({
      title: 'Tracking stopped: project no longer configured',
      details:
        'This project is no longer configured for this app: once it is added back, mention me in the thread to pick it up again.',
    });
  });
  it('caps what the service names (model, repository, ref, status) in the titles and details of its tasks', () => {
    const long = {
      ...record,
      model: 'm'.repeat(3_100),
      repository: `https://github.com/acme/${'r'.repeat(3_000)}`,
      ref: 'b'.repeat(3_000),
      status: 's'.repeat(3_000),
    };
    const [created, working] = planTasks(long, 0);
    expect(created?.title.length).toBeLessThan(400);
    expect(created?.title).toContain(` with ${'m'.repeat(79)}…`);
    expect(working?.details?.length).toBeLessThan(100);
  });
});

describe('planCardMessage: the card as one message', () => {
  it('who asked, the plan, the PR button: blocks Slack accepts', () => {
    const ended = { ...record, ended: 'pull_request' as const, prLink: 'https://github.com/a/b/pull/1' };
    const m = planCardMessage(ended, { now: 0 });
    expect(m.blocks?.map((b) => b.type)).toEqual(['section', 'plan', 'actions']);
    expect(blockKitProblems(m.blocks)).toEqual([]);
    expect(JSON.stringify(m.blocks)).toContain('"url":"https://github.com/a/b/pull/1"');
  });
});
