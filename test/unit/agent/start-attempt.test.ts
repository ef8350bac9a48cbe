import { describe, expect, it } from 'vitest';
import { postRootMessage } from '../../../src/agent/root-post.js';
import { recordAttempt } from '../../../src/agent/start-attempt.js';
import { type StartJobInput, startJob } from '../../../src/agent/start-job.js';
import { CHANNEL_ID, USER_ID } from '../../fixtures/slack.js';
import { createdPrompts, readable, useAgentUnit } from './support.js';

const PROJECT = 'proj_test';
const input: StartJobInput = { project: PROJECT, userId: USER_ID, channel: CHANNEL_ID, prompt: 'Document <retries>' };

describe('a start run again after its worker died (a take-over)', () => {
  const unit = useAgentUnit({ SLACK_PLAN_CARD: 'true' });
  const used = async () => (await unit().deps.quota.usage(PROJECT, 'create')).used;

  it('finds the job its earlier run bound and tracks it: one root, one create, one slot', async () => {
    const { deps, slack, sim, tracked } = unit();
    const first = await startJob(deps, { ...input, attempt: 'run-1' });
    // The worker died before the queue heard it was done: the same start runs again.
    const again = await startJob(deps, { ...input, attempt: 'run-1' });
    if (!first.ok || !again.ok) throw new Error('refused');
    expect(again.record.jobId).toBe(first.record.jobId);
    expect(createdPrompts(sim)).toEqual(['Document <retries>']);
    expect(slack.callsTo('chat.startStream')).toHaveLength(1);
    expect(tracked).toEqual([first.record, first.record].map(({ jobId }) => ({ project: PROJECT, jobId })));
    expect(await used()).toBe(1);
  });

  it('ends the card of a run that died before a job was bound, creating nothing: the job may exist', async () => {
    const { deps, slack, sim } = unit();
    // What the dead run left: its card streaming, its attempt recorded, no job bound.
    const posted = await postRootMessage(deps, { ...input, showProject: false });
    if (!posted.ok) throw new Error(posted.code);
    const root = { channel: CHANNEL_ID, ts: posted.ts, threadTs: posted.ts, card: true };
    await recordAttempt(deps, 'run-2', { ...root, project: PROJECT, userId: USER_ID, prompt: input.prompt });
    expect(slack.streamShown(CHANNEL_ID, posted.ts)).toBe('streaming');

    expect(await startJob(deps, { ...input, attempt: 'run-2' })).toEqual({
      ok: false,
      refusal: { code: 'interrupted' },
    });
    expect(slack.streamShown(CHANNEL_ID, posted.ts)).toBe('final');
    const shown = slack.tenant().message(CHANNEL_ID, posted.ts);
    expect(readable(shown)).toContain('Interrupted by a restart while the job was being created');
    expect(readable(shown)).toContain('Document &lt;retries&gt;');
    expect(createdPrompts(sim)).toEqual([]);
    expect(slack.callsTo('chat.startStream')).toHaveLength(1);
    expect(await used()).toBe(0);
  });
});
