import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { START_FLAGS } from '../../src/app/heap-policy.js';
import type { Role } from '../../src/config/config.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** Runs `script`, an ES module, from the repository's root through tsx with node's `flags`; it must print no error. */
function runModule(script: string, { flags = [], args = [], env = process.env }: RunOptions = {}) {
  const run = spawnSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', script, ...args], {
    cwd: new URL('../..', import.meta.url),
    env,
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  return run;
}
interface RunOptions {
  flags?: string[];
  args?: string[];
  env?: NodeJS.ProcessEnv;
}

/** What `script` prints under `role`'s heap policy (the role is its last argument), with `flags`. */
const underPolicy = (script: string, role: string, flags: string[] = []) =>
  runModule(script, { flags, args: [role] }).stdout;

describe('how the app is launched', () => {
  it('starts node without flags in npm start and in the image alike: the app adds its role’s', () => {
    const { scripts } = JSON.parse(read('package.json')) as { scripts: { start: string } };
    expect(scripts.start).toMatch(/&& node dist\/index\.js$/);
    const cmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
    expect(JSON.parse(cmd ?? '[]')).toEqual(['node', 'dist/index.js']);
  });

  it('restarts in place with its role’s start flags, and keeps the flags an operator gave', () => {
    const script =
      "import './src/app/heap-first.ts'; console.log(JSON.stringify({ pid: process.pid, flags: process.execArgv }))";
    const started = (role: string, flags: string[] = []) => {
      const run = runModule(script, { flags, env: { ...process.env, ROLE: role } });
      const printed = JSON.parse(run.stdout) as { pid: number; flags: string[] };
      expect(printed.pid).toBe(run.pid); // the same process, not a child
      return printed.flags.filter(
        (flag) => flag.startsWith('--') && !['--import', '--input-type=module'].includes(flag),
      );
    };
    expect(started('worker')).toEqual(['--max-semi-space-size=2', '--no-maglev', '--no-concurrent-recompilation']);
    expect(started('web')).toEqual(['--max-semi-space-size=8', '--no-parallel-scavenge']);
    expect(started('worker', ['--max-semi-space-size=4', '--maglev'])).toEqual([
      '--max-semi-space-size=4',
      '--maglev',
      '--no-concurrent-recompilation',
    ]);
    expect(started('web', ['--max-semi-space-size=8', '--parallel-scavenge'])).toEqual([
      '--max-semi-space-size=8',
      '--parallel-scavenge',
    ]);
  });

  it('uses start flags this node accepts, applied to its young generation', () => {
    const script =
      "const v8 = require('node:v8'); let a = []; for (let i = 0; i < 3e6; i++) a.push({ i }); " +
      "a = null; console.log(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size)";
    for (const [role, flags] of Object.entries(START_FLAGS)) {
      const run = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' });
      expect(run.stderr, role).toBe('');
      expect(run.status, role).toBe(0);
      // Two semi-spaces of at most the role's ceiling (V8's default lets them grow to 16 MB each).
      const ceiling = Number(/--max-semi-space-size=(\d+)/.exec(flags.join(' '))?.[1]);
      expect(Number(run.stdout), role).toBeLessThanOrEqual(2 * ceiling * 2 ** 20);
    }
  });

  it('compiles a worker’s code with TurboFan alone, on the main thread, and leaves a web process V8’s compilers', () => {
    const script =
      'const hot = (a, b) => a * b + (a ^ b); let s = 0; ' +
      'const round = (r) => { for (let i = 0; i < 1e5; i++) s += hot(i, r); if (r < 20) setTimeout(() => round(r + 1), 5); }; ' +
      'round(0);';
    const compiles = (role: Role) =>
      spawnSync(process.execPath, [...START_FLAGS[role], '--trace-opt', '-e', script], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter((line) => line.startsWith('[compiling method') && line.includes('JSFunction hot'));
    const worker = compiles('worker');
    expect(worker.length).toBeGreaterThan(0);
    expect(worker.every((line) => line.includes('TURBOFAN') && line.includes('kSynchronous'))).toBe(true);
    expect(compiles('web').some((line) => line.includes('MAGLEV') || line.includes('kConcurrent'))).toBe(true);
  });

  it('bounds the old generation of a working role and leaves a web process V8’s own growth', () => {
    // The same churn (a steady live set, and objects that outlive a few young collections) under each role's policy.
    const script = `
      import { constants, PerformanceObserver } from 'node:perf_hooks';
      import { applyHeapPolicy } from './src/app/heap-policy.ts';
      applyHeapPolicy(process.argv.at(-1));
      let full = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
      }).observe({ entryTypes: ['gc'] });
      const kept = Array.from({ length: 400000 }, (_, i) => ({ i, s: 'k' + i, t: [i] }));
      const ring = new Array(100000);
      for (let r = 0; r < 40; r++) {
        for (let i = 0; i < 100000; i++) ring[i] = { r, i, s: 'r' + i, t: [r] };
        await new Promise((resolve) => setImmediate(resolve));
      }
      setImmediate(() => console.log(full, kept.length));`;
    const fullCollections = (role: string) => Number(underPolicy(script, role).split(' ')[0]);
    const [all, worker, web] = ['all', 'worker', 'web'].map(fullCollections);
    expect(all).toBeGreaterThanOrEqual(2 * Math.max(1, web ?? 0));
    expect(worker).toBeGreaterThanOrEqual(2 * Math.max(1, web ?? 0));
  }, 60_000); // three processes, each churning about 3 s of CPU: slower beside other suites

  it('lets a web process grow its young generation as V8 does (up to its 8 MB a semi-space)', () => {
    // Objects that survive young collections make V8 grow the young generation, up to --max-semi-space-size.
    // A working role's young generation was kept at its first size on Node 20 (BENCHMARKS §8); on Node 24 the same
    // flag lets it grow from run to run (4 → 12 MB, up to 31 MB in CI), so that claim waits for §8 to be measured
    // again on Node 24 and is not asserted here.
    const script = `
      import { getHeapSpaceStatistics } from 'node:v8';
      import { applyHeapPolicy } from './src/app/heap-policy.ts';
      applyHeapPolicy(process.argv.at(-1));
      const kept = [];
      for (let r = 0; r < 60; r++) {
        for (let i = 0; i < 50000; i++) kept.push({ r, i, s: 'k' + i });
        if (kept.length > 400000) kept.splice(0, 200000);
        await new Promise((resolve) => setImmediate(resolve));
      }
      console.log(getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);`;
    expect(Number(underPolicy(script, 'web', [...START_FLAGS.web])) / 2 ** 20).toBeGreaterThanOrEqual(8);
  });
});
