import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/queue/engine.js';
import { QUEUES_USAGE, runQueuesCommand } from '../../src/queue/queues-cli.js';
import { createRedisEngine } from '../../src/queue/redis.js';
import { queueNamespace } from '../../src/queue/redis-connection.js';
import { CLEAN_CWD } from '../support/app-process.js';
import { captureLogs } from '../support/logs.js';
import { dropNamespace, redisAvailable, TEST_REDIS_URL, testNamespace } from '../support/redis.js';
import { eventually } from '../support/wait.js';
import { lanes } from './support.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the command in this process, keeping what it prints. */
async function queues(args: string[], env: Record<string, string | undefined>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runQueuesCommand(args, env, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Runs the real entry point (src/queues.ts, as dist/queues.js runs in the image) with exactly `env`. */
function queuesProcess(args: string[], env: Record<string, string>) {
  const tsx = pathToFileURL(`${ROOT}node_modules/tsx/dist/loader.mjs`).href;
  const child = spawn(process.execPath, ['--import', tsx, `${ROOT}src/queues.ts`, ...args], {
    cwd: CLEAN_CWD,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, out, err })),
  );
}

describe('npm run queues', () => {
  it('says plainly that an in-process queue cannot be inspected when REDIS_URL is unset', async () => {
    const result = await queuesProcess([], {});
    expect(result.code).toBe(1);
    expect(result.err).toContain('REDIS_URL is not set');
    expect(result.err).toContain('in process');
    expect(result.out).toBe('');
  });

  it('prints its usage for anything it does not know', async () => {
    for (const args of [['help'], ['retry', 'work'], ['remove', 'work', 'id', 'extra']]) {
      expect(await queues(args, { REDIS_URL: TEST_REDIS_URL })).toEqual({ code: 2, out: '', err: QUEUES_USAGE });
    }
  });

  it('names what it needs to find the queues: MINTLIFY_PROJECT_ID, or SLACK_CLIENT_ID in OAuth mode', async () => {
    const result = await queues([], { REDIS_URL: TEST_REDIS_URL });
    expect(result.code).toBe(2);
    expect(result.err).toContain('MINTLIFY_PROJECT_ID');
    expect(result.err).toContain('SLACK_CLIENT_ID');
  });

  it('names an unreachable Redis by host and port, never with its password', async () => {
    const result = await queues([], { REDIS_URL: 'redis://ops:hunter2pw@127.0.0.1:1', MINTLIFY_PROJECT_ID: 'p' });
    expect(result.code).toBe(1);
    expect(result.err).toContain('redis://127.0.0.1:1');
    expect(`${result.out}${result.err}`).not.toContain('hunter2pw');
  });

  it('refuses a REDIS_URL that is not redis:// or rediss://, as the app does, before trying to reach it', async () => {
    const result = await queues([], {
      REDIS_URL: 'http://ops:hunter2pw@redis.internal:6379',
      MINTLIFY_PROJECT_ID: 'p',
    });
    expect(result).toEqual({ code: 2, out: '', err: 'REDIS_URL: expected redis:// or rediss:// URL' });
  });

  it('refuses an admin key put in MINTLIFY_PROJECT_ID, as the app does, without printing it', async () => {
    const result = await queues([], { REDIS_URL: 'redis://127.0.0.1:1', MINTLIFY_PROJECT_ID: 'mint_secret4242' });
    expect(result.code).toBe(2);
    expect(result.err).toContain('MINTLIFY_PROJECT_ID: an admin API key (mint_…) is not a project id');
    expect(`${result.out}${result.err}`).not.toContain('secret4242');
  });

  it('refuses the project id .env.example ships with, as the app does, instead of looking under it', async () => {
    const result = await queues([], { REDIS_URL: 'redis://127.0.0.1:1', MINTLIFY_PROJECT_ID: 'your-project-id' });
    expect(result).toEqual({
      code: 2,
      out: '',
      err: 'MINTLIFY_PROJECT_ID: still the example value from .env.example: put in your own',
    });
  });

  it('reads a blank variable as unset, as the app does (.env.example leaves STORE_NAMESPACE= blank)', async () => {
    const blank = { STORE_NAMESPACE: '', SLACK_CLIENT_ID: '', SLACK_BOT_TOKEN: '' };
    const result = await queues([], { REDIS_URL: 'redis://127.0.0.1:1', MINTLIFY_PROJECT_ID: 'p', ...blank });
    expect(result.err).not.toContain('STORE_NAMESPACE');
    expect(result.err).toContain('redis://127.0.0.1:1'); // got as far as Redis, with the default namespace
    expect(result.code).toBe(1);
  });

  describe.skipIf(!redisAvailable)('on Redis', () => {
    const namespace = testNamespace();
    let engine: Engine | undefined;
    afterEach(async () => {
      await engine?.close(500);
      await dropNamespace(namespace);
    });
    const env = { REDIS_URL: TEST_REDIS_URL, STORE_NAMESPACE: namespace, MINTLIFY_PROJECT_ID: 'proj_q' };
    const queueNs = queueNamespace(namespace, 'proj_q');

    async function seed(): Promise<Engine> {
      engine = await createRedisEngine({ redisUrl: TEST_REDIS_URL, namespace: queueNs, log: captureLogs().log });
      engine.work(lanes.once, async ({ n }) => {
        if (n === 1) throw new Error('Slack refused token xoxb-999-secret');
      });
      await engine.lane(lanes.once).add({ n: 1 }, { id: 'refused/1' });
      await engine.lane(lanes.work).add({ n: 2 }, { id: 'later', delayMs: 60_000 });
      await engine.lane(lanes.work).schedule('digest', { cron: '0 9 * * 1', tz: 'Europe/Paris' }, { n: 3 });
      await eventually(async () => (await engine?.counts('once'))?.failed === 1, 8_000, 'the failure');
      return engine;
    }

    it('lists every lane’s counts, its schedulers and its failed jobs, tokens redacted', async () => {
      await seed();
      const result = await queuesProcess([], env);
      expect(result.err).toBe('');
      expect(result.code).toBe(0);
      expect(result.out).toContain(`Queues on ${TEST_REDIS_URL}, namespace ${queueNs}`);
      expect(result.out).toMatch(/lane +waiting +delayed +active +failed\nonce +0 +0 +0 +1\nwork +0 +2 +0 +0/);
      expect(result.out).toMatch(
        /work {2}digest {2}cron 0 9 \* \* 1 \(Europe\/Paris\) {2}next \d{4}-\d\d-\d\dT0[78]:00/,
      );
      expect(result.out).toMatch(/once {2}refused\/1 {2}1 attempts {2}\S+Z {2}Slack refused token xoxb-\[redacted\]/);
      expect(result.out).toContain('data {"n":1}');
      expect(result.out).not.toContain('secret');
    });

    it('works in OAuth mode: the queues of the Slack app (SLACK_CLIENT_ID), no MINTLIFY_PROJECT_ID needed', async () => {
      const oauthNs = queueNamespace(namespace, '1111.2222');
      engine = await createRedisEngine({ redisUrl: TEST_REDIS_URL, namespace: oauthNs, log: captureLogs().log });
      await engine.lane(lanes.work).add({ n: 1 }, { id: 'later', delayMs: 60_000 });
      const oauthEnv = { REDIS_URL: TEST_REDIS_URL, STORE_NAMESPACE: namespace, SLACK_CLIENT_ID: '1111.2222' };
      const result = await queuesProcess([], oauthEnv);
      expect(result.err).toBe('');
      expect(result.code).toBe(0);
      expect(result.out).toContain(`namespace ${oauthNs}`);
      expect(result.out).toMatch(/work +0 +1 +0 +0/);
    });

    it('retries a failed job and removes one, and says when there is no such failed job', async () => {
      const seeded = await seed();
      expect(await queues(['retry', 'once', 'refused/1'], env)).toMatchObject({
        code: 0,
        out: 'Retrying refused/1 in lane once.',
      });
      await eventually(
        async () => (await seeded.counts('once')).failed === 1 && (await seeded.stats())[0],
        8_000,
        'the retry',
      );
      expect((await seeded.stats()).find((s) => s.lane === 'once')?.failedTotal).toBe(2);
      expect(await queues(['remove', 'once', 'refused/1'], env)).toMatchObject({
        code: 0,
        out: 'Removed refused/1 from lane once.',
      });
      expect(await seeded.counts('once')).toMatchObject({ failed: 0 });
      expect(await queues(['remove', 'once', 'refused/1'], env)).toEqual({
        code: 1,
        out: '',
        err: 'No failed job refused/1 in lane once.',
      });
      const lanes = (await seeded.lanes()).join(', ');
      expect(await queues(['retry', 'onse', 'refused/1'], env)).toEqual({
        code: 1,
        out: '',
        err: `No lane onse under this namespace. Its lanes: ${lanes}.`,
      });
      expect((await seeded.lanes()).join(', ')).toBe(lanes); // a mistyped lane leaves nothing behind in Redis
    });
  });
});
