/**
 * How long `npm start` takes, as a person sees it: to the first-run configuration error, and to ready (`/healthz`
 * 200, Slack's token accepted) against the Slack stand-in and the simulator on 127.0.0.1. "Before" is the compile
 * that `prestart` ran on every start; "after" is the staleness check that replaced it plus `node dist/index.js`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '../tools/simulator/server.js';
import { startSlackStandin } from '../tools/slack-standin/index.js';
import { percentile, round } from './lib/stats.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = 5;
/** No .env here: the run sees exactly the environment it is given. */
const CWD = mkdtempSync(join(tmpdir(), 'bench-start-'));

function timed(args: string[], env: Record<string, string>, until?: RegExp): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: CWD, env: { PATH: process.env.PATH ?? '', ...env } });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('did not finish in 60 s'));
    }, 60_000);
    let output = '';
    const done = () => {
      clearTimeout(timer);
      resolve(performance.now() - started);
    };
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (until?.test(output)) {
        done();
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', () => (until ? undefined : done()));
  });
}

const median = (values: number[]) => round(percentile(values, 50), 0);

export interface StartResult {
  compileMs: number;
  staleCheckMs: number;
  configErrorMs: number;
  readyMs: number;
  runs: number;
}

export async function runStart(): Promise<StartResult> {
  const tsc = [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')];
  const compileStarted = performance.now();
  if (spawnSync(process.execPath, tsc, { stdio: 'ignore' }).status !== 0) throw new Error('build failed');
  const compileMs = performance.now() - compileStarted;

  const check = [join(ROOT, 'scripts/build-if-stale.mjs')];
  const entry = [join(ROOT, 'dist/index.js')];
  const slack = await startSlackStandin();
  const sim = await startSimulator();
  const env = {
    SLACK_BOT_TOKEN: slack.workspace.botToken,
    SLACK_SIGNING_SECRET: 'bench-secret',
    SLACK_API_URL: slack.apiUrl,
    MINTLIFY_API_KEY: 'mint_bench_key',
    MINTLIFY_PROJECT_ID: 'proj_bench',
    MINTLIFY_API_URL: sim.url,
    PORT: '0',
    METRICS_PORT: '0',
  };
  const stale: number[] = [];
  const configError: number[] = [];
  const ready: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      stale.push(await timed(check, {}));
      configError.push(await timed(entry, {}));
      ready.push(await timed(entry, env, /"event":"app\.started"/));
    }
  } finally {
    await sim.close();
    await slack.close();
  }
  return {
    compileMs: round(compileMs, 0),
    staleCheckMs: median(stale),
    configErrorMs: median(configError),
    readyMs: median(ready),
    runs: RUNS,
  };
}
