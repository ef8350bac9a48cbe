import { describe, expect, it } from 'vitest';
import { jobStatus, rootMessage } from '../../../../src/agent/job-messages.js';
import { sessionStatusOf, sessionTitle } from '../../../../src/agent/session/status.js';
import { ENDED_KINDS } from '../../../../src/store/jobs.js';
import { jobRecord } from '../../../fixtures/job.js';

describe('a job’s agent session', () => {
  it('is processing while its round runs, closed once the job is over for good, active while a reply can steer it', () => {
    expect(sessionStatusOf({ ended: null })).toBe('processing');
    const statuses = Object.fromEntries(ENDED_KINDS.map((ended) => [ended, sessionStatusOf({ ended })]));
    expect(statuses).toEqual({
      pull_request: 'active',
      no_changes: 'active',
      failed: 'active',
      archived: 'closed',
      gone: 'closed',
      expired: 'active',
      disconnected: 'active',
      untracked: 'active',
      stopped: 'active',
      halted: 'active',
    });
  });

  it('shows, as the root does, the end the thread was told while a follow-up of unknown fate is not seen taken up', () => {
    // Failed before: `processing` (and the root, when rewritten, "Working") for an agent that may never have got it.
    const watched = jobRecord({ round: 1, ended: null, unsure: 'pull_request' });
    expect(sessionStatusOf(watched)).toBe('active');
    expect(jobStatus(watched, 'connected').words).toBe('Pull request ready');
    expect(JSON.stringify(rootMessage(watched).blocks)).not.toContain('Working');
    expect(sessionStatusOf({ ...watched, unsure: undefined })).toBe('processing');
  });

  it('is titled with the instruction on one line, within Slack’s 200 characters, control characters shown', () => {
    expect(sessionTitle('  Document the\n\n<retry> policy  ')).toBe('Document the <retry> policy');
    const long = sessionTitle('word '.repeat(100));
    expect([...long].length).toBeLessThanOrEqual(200);
    expect(long.startsWith('word word')).toBe(true);
    expect(sessionTitle('Fix \u202Egnp.exe')).not.toContain('\u202E');
  });
});

describe('a stopped job’s status line', () => {
  it('names who stopped it, on the root and wherever the status shows; an id that is not Slack’s is left out', () => {
    const stopped = jobRecord({ ended: 'halted', stoppedBy: 'U456BOB' });
    expect(jobStatus(stopped, 'connected')).toEqual({ emoji: ':octagonal_sign:', words: 'Stopped by <@U456BOB>' });
    const root = JSON.stringify(rootMessage(stopped).blocks);
    expect(root).toContain(':octagonal_sign: Stopped by <@U456BOB>');
    expect(root).toContain('Reply in this thread to give the agent new instructions');
    expect(jobStatus(jobRecord({ ended: 'halted', stoppedBy: '<!channel>' }), 'connected').words).toBe('Stopped');
    expect(jobStatus(jobRecord({ ended: 'failed', stoppedBy: 'U456BOB' }), 'connected').words).toBe('Failed');
  });
});
