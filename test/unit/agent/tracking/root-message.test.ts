import { describe, expect, it } from 'vitest';
import { refreshNow, refreshRoot } from '../../../../src/agent/tracking/root-message.js';
import { Again } from '../../../../src/queue/engine.js';
import { boundJob, readable, storeDown, useAgentUnit } from '../support.js';

describe('refreshRoot (the refreshes lane) and refreshNow', () => {
  const unit = useAgentUnit();
  const ref = { project: 'proj_test', jobId: 'job_1' };
  const workspace = { teamId: '' };

  const updates = () => unit().slack.callsTo('chat.update');
  /** A rival updater (a follow-up, the poller, another replica) changes the job while Slack takes an update. */
  const rivalDuring = (count: number) => {
    let model = 0;
    unit().slack.fail(
      'chat.update',
      {
        storeThen: async () =>
          void (await unit().deps.store.jobs.observe(ref, { status: 'active', model: `m${++model}` })),
      },
      count,
    );
  };
  it('rewrites the root message from the stored record and tells the views that follow the job', async () => {
    const { deps, slack, watched } = unit();
    const record = await boundJob(deps);
    await refreshRoot(deps, { ...ref, workspace, stateChanged: true });
    const root = slack.messages.find((m) => m.ts === record.statusTs);
    expect(readable(root)).toContain('Working');
    expect(readable(root)).toContain('job `job_1`');
    expect(readable(root)).toContain('Reply in this thread to give the agent follow-up instructions.');
    expect(watched).toEqual([expect.objectContaining({ jobId: 'job_1', rev: record.rev })]);
  });

  it('rewrites it again when a rival changed the job meanwhile, so the latest state has the last word', async () => {
    const { deps, slack, watched } = unit();
    const record = await boundJob(deps);
    rivalDuring(1);
    await refreshRoot(deps, { ...ref, workspace, stateChanged: true });
    expect(updates()).toHaveLength(2);
    expect(readable(slack.messages.find((m) => m.ts === record.statusTs))).toContain('m1');
    expect(watched).toEqual([expect.objectContaining({ model: 'm1', rev: record.rev + 1 })]);
  });

  it('stops after three rewrites however busy its rivals are (their own refreshes follow)', async () => {
    const { deps } = unit();
    await boundJob(deps);
    rivalDuring(10);
    await refreshRoot(deps, { ...ref, workspace, stateChanged: true });
    expect(updates()).toHaveLength(3);
  });

  it('tells no view of an elapsed-time refresh', async () => {
    const { deps, watched } = unit();
    await boundJob(deps);
    await refreshRoot(deps, { ...ref, workspace, stateChanged: false });
    expect(updates()).toHaveLength(1);
    expect(watched).toEqual([]);
  });

  it('does nothing for a job it has no record of', async () => {
    const { deps, watched } = unit();
    await refreshRoot(deps, { workspace, project: 'proj_test', jobId: 'job_gone', stateChanged: true });
    expect(updates()).toEqual([]);
    expect(watched).toEqual([]);
  });

  it('logs a Slack refusal, never throws it', async () => {
    const { deps, slack, logs, watched } = unit();
    await boundJob(deps);
    slack.fail('chat.update', { error: 'message_not_found' });
    await expect(refreshRoot(deps, { ...ref, workspace, stateChanged: true })).resolves.toBeUndefined();
    expect(logs.text()).toMatch(/"event":"agent\.root_refresh_failed".*"slack_error":"message_not_found"/);
    expect(watched).toEqual([]);
  });

  it('waits out a 429 as the same job, after Slack’s Retry-After', async () => {
    const { deps } = unit();
    await boundJob(deps);
    unit().slack.fail('chat.update', { status: 429, retryAfterSec: 7 });
    const again = await refreshRoot(deps, { ...ref, workspace, stateChanged: true });
    expect(again).toBeInstanceOf(Again);
    expect(again).toMatchObject({ delayMs: 7_000, data: { ...ref, workspace, stateChanged: true } });
  });

  it('holds every root rewrite of the workspace for a 429’s Retry-After, not only the refused one', async () => {
    const { deps } = unit();
    await boundJob(deps);
    await boundJob(deps, { jobId: 'job_2' });
    unit().slack.fail('chat.update', { status: 429, retryAfterSec: 7 });
    await refreshRoot(deps, { ...ref, workspace, stateChanged: true });
    const other = await refreshRoot(deps, { ...ref, jobId: 'job_2', workspace, stateChanged: true });
    expect(other).toBeInstanceOf(Again);
    expect((other as Again).delayMs).toBeGreaterThan(6_000);
    expect(await refreshRoot(deps, { ...ref, jobId: 'job_2', workspace, stateChanged: false })).toBeUndefined();
    expect(updates()).toHaveLength(1); // only the refused one reached Slack
  });

  it('throws a 5xx or a store outage, for the lane to try again with its backoff', async () => {
    const { deps } = unit();
    await boundJob(deps);
    unit().slack.fail('chat.update', { status: 503 });
    await expect(refreshRoot(deps, { ...ref, workspace, stateChanged: true })).rejects.toThrow();
    await expect(
      refreshRoot({ ...deps, store: storeDown() }, { ...ref, workspace, stateChanged: true }),
    ).rejects.toThrow();
  });

  it('refreshNow updates at once, and hands a refresh Slack did not take to the lane', async () => {
    const { deps, engine } = unit();
    await boundJob(deps);
    await refreshNow(deps, ref);
    expect(updates()).toHaveLength(1);
    expect((await engine.counts('refreshes')).waiting).toBe(0);
    unit().slack.fail('chat.update', { status: 429, retryAfterSec: 1 });
    await refreshNow(deps, ref);
    expect((await engine.counts('refreshes')).waiting).toBe(1);
  });
});
