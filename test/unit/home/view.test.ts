import { describe, expect, it } from 'vitest';
import { homeView } from '../../../src/home/view.js';
import { initialRecord, type JobRecord } from '../../../src/store/jobs.js';
import { expectToContainAll } from '../../support/expect.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');

function record(overrides: Partial<JobRecord> = {}): JobRecord {
  const base = initialRecord(
    {
      project: 'proj_a',
      jobId: 'j1',
      channel: 'C1',
      threadTs: '1.0',
      statusTs: '1.0',
      userId: 'U1',
      prompt: 'Fix <the> docs & @channel',
      createdAtMs: NOW - 5 * 60_000,
    },
    { status: 'active' },
    NOW - 5 * 60_000,
  );
  return { ...base, ...overrides };
}

const quota = { ok: true, used: 3, left: 97, resetInMs: 30 * 60_000 };
const quotas = [{ project: 'proj_a', create: quota, followUp: { ok: true, used: 0, left: 100, resetInMs: 0 } }];

describe('homeView', () => {
  it('shows each job’s status, age, escaped prompt, thread and an https PR link', () => {
    const view = JSON.stringify(
      homeView(
        [
          { record: record(), threadLink: 'https://acme.slack.com/archives/C1/p10' },
          {
            record: record({ jobId: 'j2', ended: 'pull_request', prLink: 'https://github.com/acme/docs/pull/1' }),
          },
          { record: record({ jobId: 'j3', ended: 'failed', prLink: 'javascript:alert(1)' }) },
        ],
        quotas,
        { now: NOW, followUps: 'reply', origin: 'connected' },
      ),
    );
    expectToContainAll(view, [
      'Working',
      '5m ago',
      '>Fix &lt;the&gt; docs &amp; @\u200Bchannel',
      '<https://acme.slack.com/archives/C1/p10|Open thread>',
      '"text":{"type":"plain_text","text":"Pull request"},"url":"https://github.com/acme/docs/pull/1"',
    ]);
    expect(view).not.toContain('javascript:');
    expect(view).toContain(
      'new jobs: 3 of 100 used, 97 left · follow-ups: 0 of 100 used, 100 left · resets at <!date^1795437000^{time}|12:30 UTC>',
    );
    expect(view).toContain('Working* · project `proj_a` · 5m ago');
  });
});

describe('homeView with a pull request link past a button’s 3,000 characters', () => {
  it('still opens it, with a rich text link under the job (Slack refuses such a button url)', () => {
    const long = `https://github.com/acme/docs/pull/1?from=${'x'.repeat(3_100)}`;
    const { blocks } = homeView([{ record: record({ ended: 'pull_request', prLink: long }) }], quotas, {
      now: NOW,
      followUps: 'reply',
      origin: 'connected',
    });
    const view = JSON.stringify(blocks);
    expect(view).not.toContain('"type":"button"');
    expect(blocks).toContainEqual({
      type: 'rich_text',
      elements: [{ type: 'rich_text_section', elements: [{ type: 'link', url: long, text: 'Open pull request' }] }],
    });
  });
});

describe('homeView with many projects', () => {
  it('keeps within Slack’s view limits (100 blocks, 3,000 characters a section) and lists every project', () => {
    const many = Array.from({ length: 300 }, (_, i) => ({ ...quotas[0], project: `proj_${i}` })) as typeof quotas;
    const jobs = Array.from({ length: 10 }, (_, i) => ({ record: record({ jobId: `j${i}` }) }));
    const { blocks } = homeView(jobs, many, { now: NOW, followUps: 'reply', origin: 'connected' });
    expect(blocks.length).toBeLessThanOrEqual(100);
    const texts = blocks.map((b) => (b as { text?: { text?: string } }).text?.text ?? '');
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(3_000);
    for (let i = 0; i < 300; i++) expect(texts.join('\n')).toContain(`\`proj_${i}\``);
  });
});

describe('homeView with thousands of projects', () => {
  it('stays within 100 blocks: each list cut to what fits, then how many more and where they all are', () => {
    const COUNT = 3_000;
    const many = Array.from({ length: COUNT }, (_, i) => ({ ...quotas[0], project: `proj_${i}` })) as typeof quotas;
    const jobs = Array.from({ length: 10 }, (_, i) => ({ record: record({ jobId: `j${i}` }) }));
    const top = Array.from({ length: 6 }, () => ({ type: 'divider' as const }));
    const { blocks } = homeView(jobs, many, { now: NOW, followUps: 'reply', origin: 'connected', top });
    expect(blocks.length).toBeLessThanOrEqual(100);
    const texts = blocks.map((b) => (b as { text?: { text?: string } }).text?.text ?? '');
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(3_000);
    for (const line of [' · new jobs: ', ' · feedback unavailable']) {
      const shown = texts
        .join('\n')
        .split('\n')
        .filter((l) => l.includes(line)).length;
      expect(texts.join('\n')).toContain(`and ${COUNT - shown} more projects (\`/agent projects\` lists them all)`);
    }
  });
});

describe('homeView with thousands of long project ids', () => {
  it('stays within the 250 kB Slack takes of a Home (view_too_large), the lists cut to what fits', () => {
    const COUNT = 5_000;
    const id = (i: number) => `proj_documentation_of_the_${i}_product_line_${'x'.repeat(40)}`;
    const many = Array.from({ length: COUNT }, (_, i) => ({
      ...quotas[0],
      project: id(i),
      feedback: { up: 1_204, down: 318 },
    })) as typeof quotas;
    const jobs = Array.from({ length: 10 }, (_, i) => ({
      record: record({ jobId: `j${i}`, prompt: '文書'.repeat(150) }),
    }));
    const view = homeView(jobs, many, { now: NOW, followUps: 'reply', origin: 'connected' });
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(Buffer.byteLength(JSON.stringify(view))).toBeLessThanOrEqual(250_000);
    const texts = JSON.stringify(view.blocks);
    expect(texts).toContain(`\`${id(0)}\` · new jobs: 3 of 100 used`);
    expect(texts).toMatch(/and \d+ more projects \(`\/agent projects` lists them all\)/);
    expect(texts).toContain('How to start a job');
  });
});

describe('homeView at its edges', () => {
  const text = (view: ReturnType<typeof homeView>) => JSON.stringify(view.blocks);

  it('says how a job is steered: a mention, with AGENT_FOLLOW_UPS=mention', () => {
    expect(text(homeView([], quotas, { now: NOW, followUps: 'mention', origin: 'connected' }))).toContain(
      'mention me there to steer the agent',
    );
    expect(text(homeView([], quotas, { now: NOW, followUps: 'mention', origin: 'connected' }))).not.toContain(
      'reply there',
    );
    expect(text(homeView([], quotas, { now: NOW, followUps: 'reply', origin: 'connected' }))).toContain(
      '(in a discussion I joined, mention me)',
    );
  });

  it('a workspace with no project yet (not connected) shows no empty quota or feedback sections', () => {
    const view = text(homeView([], [], { now: NOW, followUps: 'reply', origin: 'connected' }));
    expect(view).not.toContain('This hour');
    expect(view).not.toContain('Feedback this week');
  });

  it('jobs the store did not read are said, never "you have not started a job yet"', () => {
    const view = text(homeView([], quotas, { now: NOW, followUps: 'reply', origin: 'connected', unread: 2 }));
    expect(view).toContain('2 of your jobs could not be read right now');
    expect(view).not.toContain('You have not started a job yet');
  });
});
