import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Engine, QueueUnavailableError } from '../../src/queue/engine.js';
import { createRedisEngine } from '../../src/queue/redis.js';
import { type RedisServer, redisServerAvailable, startRedisServer } from '../faults/support.js';
import { captureLogs } from '../support/logs.js';
import { eventually, sleep } from '../support/wait.js';
import { gate, lanes } from './support.js';

/** The production command timeout (2 s); short locks so recovery shows in seconds. */
const TIMINGS = { lockDurationMs: 2_000, stalledIntervalMs: 1_000 };
const COMMAND_TIMEOUT_MS = 2_000;

/**
 * A private redis-server that hangs (CLIENT PAUSE) or goes away and comes back: the engine answers within its
 * command timeout, never crashes, says so in its log and works again without a restart.
 */
describe.skipIf(!redisServerAvailable).each([
  { engine: 'BullMQ', stepLanes: new Set<string>() },
  { engine: 'the step scheduler', stepLanes: new Set([lanes.work.name, lanes.slow.name]) },
])('Redis engine when Redis misbehaves ($engine)', { timeout: 60_000 }, ({ stepLanes }) => {
  let redis: RedisServer;
  let engine: Engine;
  let logs: ReturnType<typeof captureLogs>;
  const runs: number[] = [];

  beforeEach(async () => {
    redis = await startRedisServer();
    logs = captureLogs();
    runs.length = 0;
    engine = await createRedisEngine({
      redisUrl: redis.url,
      namespace: 'faults',
      log: logs.log,
      timings: TIMINGS,
      stepLanes,
    });
    engine.work(lanes.work, async ({ n }) => {
      runs.push(n);
    });
  });
  afterEach(async () => {
    await engine.close(500);
    await redis.stop();
  });

  it('answers adds and stats within the command timeout while Redis hangs, then works again', async () => {
    await redis.command(['CLIENT', 'PAUSE', '5000', 'ALL']);
    const started = Date.now();
    const pauseEnds = started + 5_000;
    const error = await engine
      .lane(lanes.work)
      .add({ n: 1 }, { id: 'during-pause' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueueUnavailableError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 100);
    expect(Date.now() - started).toBeLessThan(COMMAND_TIMEOUT_MS + 1_000);
    await expect(engine.stats()).rejects.toThrow(QueueUnavailableError);
    await sleep(pauseEnds + 200 - Date.now());

    // An add first asks whether a failed job holds its id: that is what timed out here, so nothing was added. In
    // general a caller told "unavailable" may find the work done anyway (an add sent before the timeout lands when
    // Redis answers); adding it again with the same id is one job only while the first has not completed.
    await engine.lane(lanes.work).add({ n: 1 }, { id: 'during-pause' });
    await engine.lane(lanes.work).add({ n: 2 }, { id: 'after-pause' });
    await eventually(() => runs.includes(1) && runs.includes(2), 20_000, 'both jobs after the pause');
    await sleep(500);
    expect(runs.sort()).toEqual([1, 2]);
  });

  it('fails adds at once while Redis is gone, logs the outage once a while, and recovers when it is back', async () => {
    await engine.lane(lanes.work).add({ n: 1 });
    await eventually(() => runs.length === 1, 8_000, 'a run before the outage');
    await redis.shutdownSave();
    const started = Date.now();
    await expect(engine.lane(lanes.work).add({ n: 2 })).rejects.toThrow(QueueUnavailableError);
    expect(Date.now() - started).toBeLessThan(500);
    await sleep(1_500);
    await redis.restart();
    await eventually(
      () =>
        engine
          .lane(lanes.work)
          .add({ n: 3 })
          .then(
            () => true,
            () => false,
          ),
      15_000,
      'an add accepted after the restart',
    );
    await eventually(() => runs.includes(3), 20_000, 'the worker running again');
    const events = logs.lines.map((line) => JSON.parse(line).event);
    expect(events).toContain('queue.redis_error');
    expect(events).toContain('queue.redis_ready');
    expect(events.filter((e) => e === 'queue.redis_error').length).toBeLessThan(10);
  });

  it('closes within its deadline plus two command timeouts while Redis hangs', async () => {
    const door = gate();
    engine.work(lanes.slow, async () => door.wait());
    await engine.lane(lanes.slow).add({ n: 1 });
    await eventually(async () => (await engine.counts('slow')).active === 1, 8_000, 'a job running');
    await redis.command(['CLIENT', 'PAUSE', '15000', 'ALL']);
    const started = Date.now();
    const report = await engine.close(500);
    expect(Date.now() - started).toBeLessThan(500 + 2 * COMMAND_TIMEOUT_MS + 1_000);
    expect(report.handedBack).toBe(1);
    door.open();
  });
});
