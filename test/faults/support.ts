import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';
import { afterEach, beforeEach } from 'vitest';
import type { SlackCall } from '../fakes/fake-slack-api.js';
import { USER_ID } from '../fixtures/slack.js';
import type { Harness } from '../support/harness.js';
import { dropNamespace, TEST_REDIS_URL } from '../support/redis.js';
import { type RedisProxy, startRedisProxy } from '../support/redis-proxy.js';
import { TEST_PROJECT_ID, type TestApp } from '../support/test-app.js';

/** Fast polling, and a short queue lock so a dead instance's jobs move to a live one within about 1.5 s. */
export const FAST_POLL = { POLL_INTERVAL_MS: '50', POLL_MAX_INTERVAL_MS: '300', QUEUE_LOCK_MS: '1000' } as const;
/** A dead worker's job is taken over once its lock lapses and the next stalled check runs (lock + lock / 2). */
export const TAKEOVER_MS = 1.5 * Number(FAST_POLL.QUEUE_LOCK_MS) + 500;
/** Jobs end only when a test ends them. */
export const LONG_JOB_MS = 120_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How many log lines of `logs` (one JSON object a line) are `event`. */
export const countEvents = (logs: string, event: string) =>
  logs.match(new RegExp(`"event":"${event}"`, 'g'))?.length ?? 0;

/**
 * `n` jobs running in the simulator, each with its root message in a channel of its own (chat.postMessage's one
 * message a second per channel is not what this is about) unless `channel` names one for all, tracked by the app.
 */
export async function runningJobs(
  app: TestApp,
  n: number,
  channelOf = (i: number) => `C${String(i).padStart(3, '0')}JOBS`,
) {
  const { deps } = app.app;
  const jobs: { jobId: string; rootTs: string }[] = [];
  for (let i = 0; i < n; i++) {
    const created = await deps.mintlify.createJob(TEST_PROJECT_ID, `Job ${i}`);
    if (!created.ok) throw new Error(created.failure.code);
    const channel = channelOf(i);
    const root = await deps.slack.chat.postMessage({ channel, text: `⏳ Job ${i}` });
    const rootTs = String(root.ts);
    const base = { project: TEST_PROJECT_ID, jobId: created.value.id, channel, userId: USER_ID };
    const record = await deps.store.jobs.create(
      { ...base, threadTs: rootTs, statusTs: rootTs, prompt: `Job ${i}`, createdAtMs: Date.now() },
      { status: 'active' },
      Date.now(),
    );
    await deps.tracker.track(record);
    jobs.push({ jobId: created.value.id, rootTs });
  }
  return jobs;
}

const hasRedisServer = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
if (!hasRedisServer && process.env.REQUIRE_REDIS === '1') {
  throw new Error('REQUIRE_REDIS=1 but the redis-server binary is not on PATH (the fault suites start their own)');
}
/** Suites that stop, restart or share a Redis across processes run their own `redis-server`, never the shared one. */
export const redisServerAvailable = hasRedisServer;

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RedisServer {
  url: string;
  port: number;
  /** Runs one command on a fresh connection. */
  command(args: string[]): Promise<unknown>;
  /** `SHUTDOWN SAVE`: writes the dump, closes every connection and exits, like a maintenance restart. */
  shutdownSave(): Promise<void>;
  /** Starts again on the same port from the dump written by `shutdownSave`. */
  restart(): Promise<void>;
  /** Kills it (if running) and deletes its directory. */
  stop(): Promise<void>;
}

/**
 * A private `redis-server` on a free 127.0.0.1 port with its dump in a temp directory (no periodic saves,
 * no AOF). Only ever stopped through its own process handle.
 */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'faults-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--dbfilename',
    'dump.rdb',
  ];
  let child: ChildProcess | undefined;

  async function launch(): Promise<void> {
    const proc = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 5_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      };
      proc.stdout?.on('data', onData);
      proc.stderr?.on('data', onData);
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${output}`));
      });
    });
  }

  const url = `redis://127.0.0.1:${port}`;
  async function command(commandArgs: string[]): Promise<unknown> {
    const client = createClient({ url, socket: { connectTimeout: 1_000, reconnectStrategy: false } });
    client.on('error', () => {});
    await client.connect();
    try {
      return await client.sendCommand(commandArgs);
    } finally {
      client.destroy();
    }
  }

  await launch();
  return {
    url,
    port,
    command,
    async shutdownSave() {
      const proc = child;
      if (!proc || proc.exitCode !== null) return;
      const exited = once(proc, 'exit');
      await command(['SHUTDOWN', 'SAVE']).catch(() => {}); // the server closes the connection as it exits
      await exited;
    },
    async restart() {
      await launch();
    },
    async stop() {
      const proc = child;
      if (proc && proc.exitCode === null && proc.signalCode === null) {
        const exited = once(proc, 'exit');
        proc.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Slack refuses a section whose text is over 3,000 characters (`invalid_blocks`); the fake does not. */
export function oversizedSections(calls: SlackCall[]): string[] {
  const found: string[] = [];
  for (const call of calls) {
    const blocks = call.args.blocks;
    if (!Array.isArray(blocks)) continue;
    for (const block of blocks as { type?: string; text?: { text?: unknown } }[]) {
      const text = block.text?.text;
      if (block.type === 'section' && typeof text === 'string' && text.length > 3_000) {
        found.push(`${call.method}: section of ${text.length} characters`);
      }
    }
  }
  return found;
}

/** The load generator: plain Node in its own process, so its own work does not delay the app's event loop. */
// node:http rather than fetch: undici's fetch, fired 200 times in a second, itself adds ~1 s to many requests here.
const LOAD_SCRIPT = `
import { createHmac } from 'node:crypto';
import http from 'node:http';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { url, secret, bodies, spreadMs } = JSON.parse(input);
const { hostname, port } = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const post = (body, headers) =>
  new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path: '/slack/events', method: 'POST', headers, agent, timeout: 10000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
const results = await Promise.all(bodies.map(async (body, i) => {
  await new Promise((r) => setTimeout(r, Math.floor((i * spreadMs) / bodies.length)));
  const ts = Math.floor(Date.now() / 1000);
  const signature = 'v0=' + createHmac('sha256', secret).update('v0:' + ts + ':' + body).digest('hex');
  const started = performance.now();
  try {
    const status = await post(body, {
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': Buffer.byteLength(body),
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': signature,
    });
    return { status, ms: performance.now() - started };
  } catch (error) {
    return { status: 0, ms: performance.now() - started, error: String(error) };
  }
}));
agent.destroy();
process.stdout.write(JSON.stringify(results));
`;

/**
 * POSTs signed form bodies to `baseUrl` from a separate Node process, all within `spreadMs`
 * (like Slack's servers would), and resolves with each request's status and latency in order.
 */
export async function burstFromAnotherProcess(
  baseUrl: string,
  secret: string,
  forms: Record<string, string>[],
  spreadMs: number,
): Promise<{ status: number; ms: number; error?: string }[]> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', LOAD_SCRIPT], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const bodies = forms.map((form) => new URLSearchParams(form).toString());
  child.stdin?.end(JSON.stringify({ url: baseUrl, secret, bodies, spreadMs }));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`load generator exited with ${code}: ${err}`);
  return JSON.parse(out);
}

/** Slack cuts off (or refuses with `msg_too_long`) message text over 40,000 characters; the fake does not. */
export function overlongTexts(calls: SlackCall[]): string[] {
  return calls
    .filter((call) => typeof call.args.text === 'string' && call.args.text.length > 40_000)
    .map((call) => `${call.method}: text of ${String(call.args.text).length} characters`);
}

const CPU_LOCK = join(tmpdir(), 'mintlify-slack-faults-cpu.lock');

/**
 * A lock file shared by the CPU-heavy fault suites (the burst's latency measurement, the multi-process
 * crash tests) so they never run at the same time on a 2-core box. A lock left by a dead process is taken over.
 * Resolves with the release function.
 */
export async function holdCpuLock(timeoutMs = 110_000): Promise<() => void> {
  const deadline = Date.now() + timeoutMs;
  const mine = String(process.pid);
  for (;;) {
    try {
      writeFileSync(CPU_LOCK, mine, { flag: 'wx' });
      return () => {
        if (readOwner() === mine) rmSync(CPU_LOCK, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number(readOwner());
    if (owner && !isAlive(owner)) rmSync(CPU_LOCK, { force: true });
    if (Date.now() > deadline) throw new Error(`${CPU_LOCK} still held by pid ${owner}`);
    await sleep(100);
  }
}

function readOwner(): string | undefined {
  try {
    return readFileSync(CPU_LOCK, 'utf8');
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A private `redis-server` for each test of the suite, stopped after the test's afterEach hooks (and its apps). */
export function useRedisServer(): () => RedisServer {
  let redis: RedisServer | undefined;
  beforeEach(async () => {
    const server = await startRedisServer();
    redis = server;
    return () => server.stop();
  });
  return () => {
    if (!redis) throw new Error('useRedisServer(): the server only runs inside a test');
    return redis;
  };
}

/**
 * A Redis proxy (support/redis-proxy.ts) in front of the shared test Redis for each test of the suite: boot an app
 * with `redisUrl: proxy().url` to make its Redis misbehave. Call after `useHarness`: as the test ends every fault is
 * cleared (held bytes go on, nothing is dropped or slowed), so the harness stops its apps on a Redis that answers;
 * then the proxy closes and `h`'s namespace is dropped (an app that reached Redis only through the proxy wrote there
 * without the harness knowing).
 */
export function useRedisProxy(h: Harness): () => RedisProxy {
  let proxy: RedisProxy | undefined;
  beforeEach(async () => {
    const started = await startRedisProxy();
    proxy = started;
    // Runs after every afterEach hook, the harness's teardown included.
    return async () => {
      await started.close();
      await dropNamespace(h.namespace);
    };
  });
  afterEach(async () => {
    proxy?.dropCommandsWith(undefined);
    proxy?.slowCommandsWith(undefined);
    await proxy?.resume();
  });
  return () => {
    if (!proxy) throw new Error('useRedisProxy(): the proxy only runs inside a test');
    return proxy;
  };
}

/** One key's value, read on the shared test Redis by a client of its own (what a deployment left there). */
export async function redisGet(key: string): Promise<string | null> {
  const client = createClient({ url: TEST_REDIS_URL });
  await client.connect();
  try {
    return await client.get(key);
  } finally {
    await client.close();
  }
}
