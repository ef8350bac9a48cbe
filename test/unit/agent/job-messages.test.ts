import { describe, expect, it } from 'vitest';
import {
  formatElapsed,
  jobStatus,
  outcomeMessage,
  rootMessage,
  type Telling,
  trackingStoppedMessage,
  undeliveredNote,
} from '../../../src/agent/job-messages.js';
import { blockKitProblems } from '../../../tools/slack-standin/index.js';
import { jobRecord } from '../../fixtures/job.js';
import { expectToContainAll } from '../../support/expect.js';

const record = jobRecord({ userId: 'U1', prompt: 'Document <!here> & webhooks' });
/** An outcome as a workspace that connected its project tells it, steered by a reply. */
const REPLY: Telling = { jobMaxAgeMs: 1, steer: 'reply', origin: 'connected' };
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
    expectToContainAll(m, ['3m elapsed', 'job `job_1`', 'acme/docs@mintlify/agent-1', 'Reply in this thread']);
  });

  it('caps what the service names (model, repository, ref, status): a long one cannot make Slack refuse the root', () => {
    const long = jobRecord({
      model: 'm'.repeat(3_100),
      repository: `https://github.com/acme/${'r'.repeat(3_000)}`,
      ref: 'b'.repeat(3_000),
      status: 's'.repeat(3_000),
    });
    const m = rootMessage(long, { now: 0 });
    expect(blockKitProblems(m.blocks)).toEqual([]);
    const line = JSON.stringify(m.blocks?.[1]);
    expect(line).toContain(`\`${'m'.repeat(79)}…\``);
    expect(line.length).toBeLessThan(1_000);
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
      REPLY,
    );
    expect(allText(m)).toContain('<https://github.com/acme/docs/pull/3>');
    expect(allText(m)).toContain('"url":"https://github.com/acme/docs/pull/3"');
    expect(allText(m)).toContain('opened a pull request');
  });

  it('does not link a non-https PR URL', () => {
    const m = outcomeMessage(record, { kind: 'pull_request', prLink: 'http://evil.example/x', updated: false }, REPLY);
    expect(allText(m)).not.toContain('"url"');
    expect(allText(m)).not.toContain('<http://evil');
  });

  it('shows an unsafe PR link as one inline-code span: a backtick in it cannot end the span', () => {
    const prLink = 'javascript:`<!channel>`*bold*';
    const m = outcomeMessage(record, { kind: 'pull_request', prLink, updated: false }, REPLY);
    expect(m.blocks?.[0]).toMatchObject({
      text: { text: expect.stringContaining("`javascript:'&lt;!channel&gt;'*bold*`") },
    });
  });

  it('says the PR was updated after a follow-up', () => {
    const m = outcomeMessage(
      record,
      { kind: 'pull_request', prLink: 'https://github.com/acme/docs/pull/3', updated: true },
      REPLY,
    );
    expect(m.text).toContain('updated the pull request');
  });

  it('keeps the pull request of a job archived after it opened one, and withholds an unsafe link', () => {
    const m = outcomeMessage(record, { kind: 'archived', prLink: 'https://github.com/acme/docs/pull/3' }, REPLY);
    expect(m.text).toContain('archived');
    expect(JSON.stringify(m.blocks)).toContain('<https://github.com/acme/docs/pull/3>');
    expect(JSON.stringify(m.blocks)).toContain('"url":"https://github.com/acme/docs/pull/3"');
    const unsafe = outcomeMessage(record, { kind: 'archived', prLink: 'javascript:alert(1)' }, REPLY);
    expect(JSON.stringify(unsafe.blocks)).not.toContain('"url":');
    expect(unsafe.text).toContain('not an https URL Slack can open');
  });

  it.each([3_000, 40_000])('keeps a %i-character link out of the section and opens it from a block', (chars) => {
    const prLink = `https://github.com/acme/docs/pull/3?q=${'q'.repeat(chars - 38)}`;
    const m = outcomeMessage(record, { kind: 'pull_request', prLink, updated: false }, REPLY);
    const [section, opener] = m.blocks ?? [];
    expect(section).toEqual({ type: 'section', text: { type: 'mrkdwn', text: expect.stringMatching(/request\.$/) } });
    expect(JSON.stringify(opener)).toContain(`"url":"${prLink}"`);
  });

  it.each([
    ['no_changes', 'without changing any files'],
    ['failed', 'Reply in this thread'],
    ['archived', 'archived'],
    ['gone', 'no longer exists'],
    ['expired', 'stopped tracking this job after 24h 0m'],
  ] as const)('words %s clearly', (kind, words) => {
    expect(outcomeMessage(record, { kind }, { ...REPLY, jobMaxAgeMs: 24 * 60 * 60 * 1000 }).text).toContain(words);
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

describe('jobStatus', () => {
  it.each([
    [null, ':hourglass_flowing_sand:', 'Working'],
    ['pull_request', ':white_check_mark:', 'Pull request ready'],
    ['untracked', ':warning:', 'Result could not be posted in this thread'],
    ['stopped', ':warning:', 'Tracking stopped'],
  ] as const)('reads a job ended %s as its status line does', (ended, emoji, words) => {
    expect(jobStatus(jobRecord({ ended }), 'connected')).toEqual({ emoji, words });
  });
});

describe('trackingStoppedMessage', () => {
  it.each([
    ['reply', 'Reply in this thread to pick it up again'],
    ['mention', 'Mention me in this thread to pick it up again'],
  ] as const)('says tracking stopped, names the job and how to resume (steered by a %s)', (steer, how) => {
    const { text } = trackingStoppedMessage(jobRecord({ jobId: 'job-9' }), steer);
    expectToContainAll(text, ['stopped tracking this job', '`job-9`', how, 'may still be working']);
  });

  it('tells the root a stopped round can be resumed by a reply', () => {
    const blocks = JSON.stringify(rootMessage(jobRecord({ ended: 'stopped' })).blocks);
    expectToContainAll(blocks, ['Tracking stopped', 'Reply in this thread to pick it up again']);
  });

  it('says "mention me" wherever a plain reply would not steer the job (a thread it joined, AGENT_FOLLOW_UPS=mention)', () => {
    const working = JSON.stringify(rootMessage(jobRecord({}), { steer: 'mention' }).blocks);
    expect(working).toContain('Mention me in this thread to give the agent follow-up instructions.');
    expect(working).not.toContain('Reply in this thread');
    expect(outcomeMessage(record, { kind: 'failed' }, { ...REPLY, steer: 'mention' }).text).toContain(
      'Mention me in this thread',
    );
  });
});

describe('a job whose project the app no longer serves', () => {
  const gone = jobRecord({ project: 'proj_b', jobId: 'job-9', ended: 'disconnected' });

  it('says a workspace disconnected it when its projects are connected in App Home', () => {
    expect(jobStatus(gone, 'connected').words).toBe('Tracking stopped: Mintlify disconnected');
    const note = outcomeMessage(gone, { kind: 'disconnected' }, REPLY).text;
    expectToContainAll(note, ['project `proj_b` is not connected to Mintlify in this workspace any more', '*Home*']);
  });

  it('says it is no longer configured, and who brings it back, when the app’s configuration names its projects', () => {
    expect(jobStatus(gone, 'configured').words).toBe('Tracking stopped: project no longer configured');
    const note = outcomeMessage(gone, { kind: 'disconnected' }, { ...REPLY, origin: 'configured' }).text;
    expectToContainAll(note, [
      'project `proj_b` is no longer configured for this app',
      'may still be working (job `job-9`)',
      'Once whoever runs this app adds the project back, reply in this thread to pick it up again',
    ]);
    const root = JSON.stringify(rootMessage(gone, { origin: 'configured' }).blocks);
    expectToContainAll(root, ['project no longer configured', 'Once whoever runs this app adds the project back']);
    for (const text of [note, root]) expect(text).not.toMatch(/disconnect|Home|connected again/);
  });
});

describe('undeliveredNote', () => {
  it('says where the result could not be posted and why, then gives the result itself', () => {
    const m = undeliveredNote(record, { kind: 'no_changes' }, REPLY, 'is_archived');
    expect(m.text).toContain(
      "I couldn't post the result of your Mintlify agent job in <#C123DOCS> (Slack said `is_archived`)",
    );
    expect(m.text).toContain('finished without changing any files');
    // The note, the result, and the result's feedback buttons (they name the job's own thread).
    expect(m.blocks?.map((b) => b.type)).toEqual(['section', 'section', 'context_actions']);
  });
});
