import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { initialRecord } from '../../src/store/jobs.js';
import { inOneShape } from '../../src/store/jobs-memory.js';

describe('the memory job store’s records', () => {
  it('share one hidden class, however their binding was built', () => {
    // Run where V8's natives can compare hidden classes. Each door builds its binding its own way (a mention's carries
    // a context note and its thread kind, /agent's neither), and a spread keeps each key order as a class of its own.
    // In the scale bench's process, each of 10,000 records had a class of its own (BENCHMARKS §8).
    const script = `
      import { inOneShape } from './src/store/jobs-memory.ts';
      import { initialRecord } from './src/store/jobs.ts';
      const sameClass = new Function('a', 'b', 'return %HaveSameMap(a, b)');
      const base = { project: 'p', channel: 'C1', threadTs: '1.1', statusTs: '1.1', userId: 'U1', prompt: 'fix' };
      const records = [
        { jobId: 'j1', ...base, createdAtMs: 1 },
        { ...base, jobId: 'j2', createdAtMs: 2, thread: 'joined', contextNote: 'with 3 messages' },
      ].map((binding) => ({ ...initialRecord(binding, { status: 'active' }, 0), rev: 1 }));
      const [a, b] = records;
      console.log(JSON.stringify({ spread: sameClass(a, b), stored: sameClass(inOneShape(a), inOneShape(b)) }));`;
    const run = spawnSync(
      process.execPath,
      ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: new URL('../..', import.meta.url), encoding: 'utf8' },
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ spread: false, stored: true });
  });

  it('keep every field of the record', () => {
    const binding = {
      project: 'p',
      jobId: 'j',
      channel: 'C1',
      threadTs: '1.1',
      statusTs: '1.2',
      userId: 'U1',
      prompt: 'fix',
      createdAtMs: 5,
      contextNote: 'with 3 messages',
      thread: 'joined' as const,
      root: 'card' as const,
    };
    const record = {
      ...initialRecord(binding, { status: 'active', repository: 'acme/docs', ref: 'main', model: 'm' }, 7),
      prLink: 'https://github.com/acme/docs/pull/1',
      round: 2,
      ended: 'pull_request' as const,
      unsure: 'no_changes' as const,
      unsureTs: '1.3',
      stoppedBy: 'U2',
      attempt: 2,
      attemptAtMs: 9,
      rev: 4,
    };
    expect(inOneShape(record)).toStrictEqual(record);
  });
});
