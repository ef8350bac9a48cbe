import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** An empty working directory: the entry point loads `.env` from its working directory, and a test's must not. */
export const CLEAN_CWD = inject('cleanCwd');

/**
 * Spawns the real entry point with exactly `env` (plus PATH), never a developer's .env: the compiled `dist/index.js`
 * that `npm start` and the image run (the test setup builds it when `src/` changed; it starts in about half the time
 * of the source through tsx).
 */
export function spawnEntryPoint(
  env: Record<string, string>,
  cwd = CLEAN_CWD,
): ChildProcess & { stdout: NodeJS.ReadableStream; stderr: NodeJS.ReadableStream } {
  return spawn(process.execPath, [join(ROOT, 'dist/index.js')], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...(process.env.TMPDIR && { TMPDIR: process.env.TMPDIR }), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as ChildProcess & { stdout: NodeJS.ReadableStream; stderr: NodeJS.ReadableStream };
}

/**
 * Env that makes the entry point say on stderr when it calls `process.exit()` (`process.exit(1)`), for tests that it
 * ends by emptying its loop instead: an exit while V8 compiles in the background can deadlock (nodejs/node#54918).
 */
export const EXIT_CALLS_SHOWN = {
  NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(
    'const exit=process.exit;process.exit=(code)=>{process.stderr.write("process.exit("+code+")\\n");return exit.call(process,code)};',
  )}`,
};

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** From spawn to exit. */
  ms: number;
}

/**
 * Runs the real entry point with exactly `env` and waits for it to exit (killed after `timeoutMs`). The default
 * leaves room for a CI box busy with other suites, where loading the whole app took 15 s.
 */
export function runEntryPoint(env: Record<string, string>, timeoutMs = 45_000, cwd = CLEAN_CWD): Promise<Exit> {
  const started = performance.now();
  const child = spawnEntryPoint(env, cwd);
  // A process that should stop must not be left running when it does not.
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return untilExit(child, started).finally(() => clearTimeout(timer));
}

/** Collects a child's output until it exits. */
function untilExit(
  child: ChildProcess & { stdout: NodeJS.ReadableStream; stderr: NodeJS.ReadableStream },
  started: number,
): Promise<Exit> {
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: performance.now() - started }));
  });
}

export interface AppProcess {
  url: string;
  /** Its operator port: `/metrics` and the detailed `/healthz`. */
  metricsUrl: string;
  child: ChildProcess;
  output: () => string;
  /** Sends `signal` and resolves with the exit code once the process is gone. */
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs the real entry point (`dist/index.js`) as its own process, as `npm start` would (without any .env), and waits until
 * it logs `app.started`. Used where a test needs real signals: SIGTERM, SIGKILL.
 */
export async function startAppProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<AppProcess> {
  const child = spawnEntryPoint(env);
  let output = '';
  const [port, metricsPort] = await new Promise<[number, number]>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // the caller never gets it to stop: it must not outlive the test, spinning on its own
      reject(new Error(`app did not start:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const started = output.match(/"event":"app\.started","port":(\d+),"metrics_port":(\d+)/);
      if (started) {
        clearTimeout(timer);
        resolve([Number(started[1]), Number(started[2])]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`app exited with ${code} before starting:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
    child,
    output: () => output,
    async kill(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

/** Runs `npm start`'s build step (`scripts/build-if-stale.mjs`): compiles only when src/ is newer than dist/. */
export function buildIfStale(): Promise<Exit> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(ROOT, 'scripts/build-if-stale.mjs')], {
    cwd: CLEAN_CWD,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return untilExit(child, started);
}
