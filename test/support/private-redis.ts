import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { probeRedis } from './redis-probe.js';

/** Whether `redis-server` can be started here (the CI script installs it when it has to start Redis itself). */
export const privateRedisAvailable = spawnSync('redis-server', ['--version']).status === 0;

/**
 * A Redis of the test's own on 127.0.0.1, no persistence: for what must not happen to the shared test server
 * (CLIENT PAUSE ALL, FLUSHALL, a restart), which every parallel test would feel.
 */
export interface PrivateRedis {
  /** `redis://127.0.0.1:<port>` (database 0). */
  readonly url: string;
  /** The server's process id (a restart makes a new process). */
  pid(): number | undefined;
  /** Kills the server and starts an empty one on the same port: a crash and restart without persistence. */
  restart(): Promise<void>;
  /** Idempotent. */
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child = await launch(port, url);
  return {
    url,
    pid: () => child.pid,
    restart: async () => {
      await kill(child);
      child = await launch(port, url);
    },
    stop: () => kill(child),
  };
}

async function launch(port: number, url: string): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir()];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const deadline = Date.now() + 5_000;
  while ((await probeRedis(url, 200)) !== undefined) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await kill(child);
      throw new Error(`redis-server did not start on port ${port}`);
    }
    await sleep(50);
  }
  return child;
}

/** SIGKILL: a crash; with no persistence nothing survives, which is the point. */
async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
