import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The node flags `npm start` runs the app with. */
function startFlags(): string[] {
  const { scripts } = JSON.parse(read('package.json')) as { scripts: { start: string } };
  const flags = /\bnode ((?:--\S+ )*)dist\/index\.js/.exec(scripts.start)?.[1] ?? '';
  return flags.split(' ').filter(Boolean);
}

describe('how the app is launched', () => {
  it('runs with the heap flags BENCHMARKS measured, in npm start and in the image alike', () => {
    const flags = startFlags();
    expect(flags).toEqual(['--max-semi-space-size=8', '--heap-growing-percent=30']);
    const cmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
    expect(JSON.parse(cmd ?? '[]')).toEqual(['node', ...flags, 'dist/index.js']);
  });

  it('uses flags this node accepts, applied to its young generation', () => {
    const script =
      "const v8 = require('node:v8'); let a = []; for (let i = 0; i < 3e6; i++) a.push({ i }); " +
      "a = null; console.log(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size)";
    const run = spawnSync(process.execPath, [...startFlags(), '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    // Two semi-spaces of at most 8 MB (V8's default lets them grow to 16 MB each).
    expect(Number(run.stdout)).toBeLessThanOrEqual(16 * 2 ** 20);
  });
});
