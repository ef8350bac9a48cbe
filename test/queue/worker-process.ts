/**
 * A worker process for test/queue/takeover.test.ts: works lane `takeover` on the Redis engine and records in Redis
 * when it starts and completes a job (`<namespace>:test:started` / `:completed`, entries `<job id> <pid>`). It also
 * works lane `steps`: a job of STEP_COUNT steps, each held HOLD_MS (`…:test:steps`, entries `<job id> <step> <pid>`).
 * With STEPS=1 both lanes run on the step scheduler instead of BullMQ.
 */
import { Redis } from 'ioredis';
import { z } from 'zod';
import { createLogger } from '../../src/log.js';
import { Again } from '../../src/queue/engine.js';
import { createRedisEngine } from '../../src/queue/redis.js';
import { lanes, STEP_COUNT } from './support.js';

const env = z
  .object({
    REDIS_URL: z.string(),
    NAMESPACE: z.string(),
    LOCK_MS: z.coerce.number(),
    STALLED_MS: z.coerce.number(),
    /** `1`: the lanes run on the step scheduler (src/queue/step-worker.ts) instead of BullMQ. */
    STEPS: z.enum(['0', '1']).default('0'),
  })
  .parse(process.env);
/** Long enough that the test kills a worker in the middle of it. */
const HOLD_MS = 1_500;

const record = new Redis(env.REDIS_URL);
const engine = await createRedisEngine({
  redisUrl: env.REDIS_URL,
  namespace: env.NAMESPACE,
  log: createLogger('info'),
  timings: { lockDurationMs: env.LOCK_MS, stalledIntervalMs: env.STALLED_MS },
  ...(env.STEPS === '1' && { stepLanes: new Set([lanes.takeover.name, lanes.steps.name]) }),
});
engine.work(lanes.takeover, async (_data, meta) => {
  await record.rpush(`${env.NAMESPACE}:test:started`, `${meta.id} ${process.pid}`);
  await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
  await record.rpush(`${env.NAMESPACE}:test:completed`, `${meta.id} ${process.pid}`);
});
engine.work(lanes.steps, async ({ n }, meta) => {
  await record.rpush(`${env.NAMESPACE}:test:steps`, `${meta.id} ${n} ${process.pid}`);
  await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
  if (n < STEP_COUNT) return new Again({ n: n + 1 }, 0);
  await record.rpush(`${env.NAMESPACE}:test:completed`, `${meta.id} ${process.pid}`);
  return undefined;
});
process.stdout.write('worker.ready\n');
process.on('SIGTERM', async () => {
  await engine.close(1_000);
  record.disconnect();
  process.exit(0);
});
