/**
 * Benchmark: the memory store under a stream of short-lived entries (Slack event dedupe claims, the visitors
 * cache). 100,000 of each are written with a short TTL; once they expire and a sweep has run, the heap must be
 * back near where it started. Runs in its own process with --expose-gc so heap numbers are after a full GC.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../src/log.js';
import { createMemoryClaims } from '../src/store/claims.js';
import { createStore } from '../src/store/store.js';
import { round, sleep } from './lib/stats.js';

export interface SoakResult {
  entries: number;
  heapMb: { before: number; filled: number; afterSweep: number };
  claimsLeft: number;
  cacheHitsAfterExpiry: number;
}

const ENTRIES = 100_000;
const TTL_MS = 2_000;
/** The memory store's own sweep interval (30 s) plus the TTL and a margin. */
const WAIT_FOR_SWEEP_MS = 33_000;

const heapMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return round(process.memoryUsage().heapUsed / 2 ** 20, 1);
};

async function soak(): Promise<SoakResult> {
  const claims = createMemoryClaims();
  const store = await createStore({ log: createLogger('error', () => {}) });
  const before = heapMb();
  for (let i = 0; i < ENTRIES; i++) {
    await claims.claim(`message:proj:${i}-${'x'.repeat(36)}`, 'instance-id', TTL_MS);
    await store.kv.set(`visitors:v1:proj:${i}`, { response: { totals: { human: i, ai: i, total: i } } }, TTL_MS);
  }
  const filled = heapMb();
  await sleep(WAIT_FOR_SWEEP_MS);
  const afterSweep = heapMb();
  let cacheHitsAfterExpiry = 0;
  for (let i = 0; i < 100; i++) if (await store.kv.get(`visitors:v1:proj:${i}`)) cacheHitsAfterExpiry++;
  const result = {
    entries: ENTRIES,
    heapMb: { before, filled, afterSweep },
    claimsLeft: claims.size,
    cacheHitsAfterExpiry,
  };
  claims.close();
  await store.close();
  return result;
}

/** Runs the soak in a child process with --expose-gc and returns its result. */
export function runSoak(): SoakResult {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--child'],
    {
      encoding: 'utf8',
    },
  );
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as SoakResult;
}

if (process.argv.includes('--child')) console.log(JSON.stringify(await soak()));
