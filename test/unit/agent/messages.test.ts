import { describe, expect, it } from 'vitest';
import { errors, formatElapsed, outcomeMessage, rootMessage } from '../../../src/agent/messages.js';
import type { JobRecord } from '../../../src/store/jobs.js';

const record: JobRecord = {
  project: 'proj_a',
  jobId: 'job_1',
  channel: 'C1',
  threadTs: '1.0',
  statusTs: '1.0',
  userId: 'U1',
  prompt: 'Document <!here> & webhooks',
  status: 'active',
  repository: 'https://github.com/acme/docs',
  ref: 'mintlify/agent-1',
  model: 'claude',
  prLink: null,
  round: 0,
  createdAtMs: 0,
  roundStartedAtMs: 0,
  ended: null,
  attempt: null,
  rev: 0,
};

const allText = (m: { text: string; blocks?: unknown[] }) => `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;

describe('rootMessage', () => {
  it('shows who asked, the escaped prompt and a starting status before the job exists', () => {
    const m = rootMessage({ project: 'proj_a', userId: 'U1', prompt: record.prompt });
    expect(allText(m)).toContain('<@U1> asked the Mintlify agent');
    expect(allText(m)).toContain('&lt;!here&gt; &amp; webhooks');
    expect(allText(m)).toContain('Starting');
  });

  it('shows elapsed time, job id, repository@ref and model while working', () => {
    const m = allText(rootMessage(record, { now: 3 * 60_000 }));
    expect(m).toContain('3m elapsed');
    expect(m).toContain('job `job_1`');
    expect(m).toContain('acme/docs@mintlify/agent-1');
    expect(m).toContain('Reply in this thread');
  });

  it('trims a long prompt to a readable length', () => {
    const m = rootMessage({ project: 'proj_a', userId: 'U1', prompt: 'x'.repeat(10_000) });
    const section = JSON.stringify(m.blocks?.[0]);
    expect(section.length).toBeLessThan(1_000);
    expect(section).toContain('…');
  });
});

describe('outcomeMessage', () => {
  it('links a https pull request as text and as a button', () => {
    const m = outcomeMessage(
      record,
      { kind: 'pull_request', prLink: 'https://github.com/acme/docs/pull/3', updated: false },
      1,
    );
    expect(allText(m)).toContain('<https://github.com/acme/docs/pull/3>');
    expect(allText(m)).toContain('"url":"https://github.com/acme/docs/pull/3"');
    expect(allText(m)).toContain('opened a pull request');
  });

  it('does not link a non-https PR URL', () => {
    const m = outcomeMessage(record, { kind: 'pull_request', prLink: 'http://evil.example/x', updated: false }, 1);
    expect(allText(m)).not.toContain('"url"');
    expect(allText(m)).not.toContain('<http://evil');
  });

  it('says the PR was updated after a follow-up', () => {
    const m = outcomeMessage(
      record,
      { kind: 'pull_request', prLink: 'https://github.com/acme/docs/pull/3', updated: true },
      1,
    );
    expect(m.text).toContain('updated the pull request');
  });

  it.each([
    ['no_changes', 'without changing any files'],
    ['failed', 'Reply in this thread'],
    ['archived', 'archived'],
    ['gone', 'no longer exists'],
    ['expired', 'stopped tracking this job after 24h 0m'],
  ] as const)('words %s clearly', (kind, words) => {
    expect(outcomeMessage(record, { kind }, 24 * 60 * 60 * 1000).text).toContain(words);
  });
});

describe('error replies', () => {
  it('echo the whole prompt, even a long one, as plain message text (no 3,000-character block limit)', () => {
    const prompt = Array.from({ length: 4_000 }, (_, i) => `w${i}`).join(' ');
    const m = errors.unavailable(prompt);
    expect(m.blocks).toBeUndefined();
    expect(m.text.replace(/\n>/g, '\n')).toContain(prompt);
    expect(m.text.length).toBeLessThan(40_000);
  });

  it('says when the next slot opens', () => {
    expect(errors.createLimit('proj_a', 'p', 90_000, Date.parse('2026-11-22T10:00:00Z')).text).toContain(
      'in 2 minutes (10:01 UTC)',
    );
  });
});

describe('formatElapsed', () => {
  it.each([
    [0, '0s'],
    [59_000, '59s'],
    [60_000, '1m'],
    [3_600_000 + 5 * 60_000, '1h 5m'],
  ])('formats %d ms as %s', (ms, text) => {
    expect(formatElapsed(ms)).toBe(text);
  });
});
