import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { probeRedis, redisVerdict, TEST_REDIS_URL } from './redis-probe.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisAvailable: boolean;
    /** An empty working directory for spawned entry points (app-process.ts), removed after the run. */
    cleanCwd: string;
  }
}

/**
 * Probes Redis once per run: the Redis suites are skipped with one line saying why, or the run fails in CI. Makes
 * the empty working directory spawned entry points share, and removes it at the end. Compiles `dist/` first if
 * `src/` changed since the last build, for the projects that spawn entry points (which run it), never the unit tests.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  // Runs for the root ('') and for each project with files to run that names it (the suites and the alone ones spawn).
  if (project.name && project.name !== 'unit') buildIfStale();
  const verdict = redisVerdict(TEST_REDIS_URL, await probeRedis(TEST_REDIS_URL), process.env);
  if (!verdict.available) console.warn(verdict.skipLine);
  project.provide('redisAvailable', verdict.available);
  const cleanCwd = mkdtempSync(join(tmpdir(), 'app-process-'));
  project.provide('cleanCwd', cleanCwd);
  return () => rmSync(cleanCwd, { recursive: true, force: true });
}

/**
 * `npm start`'s build step, before any test spawns the compiled entry point. Synchronous: each project runs this
 * setup, and the second finds the build fresh.
 */
function buildIfStale(): void {
  const script = fileURLToPath(new URL('../../scripts/build-if-stale.mjs', import.meta.url));
  const result = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`src/ does not compile (exit ${result.status}): the suites run dist/`);
}
