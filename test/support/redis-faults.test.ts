import { createClient, type RedisClientType } from '@keyv/redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateRedis, privateRedisAvailable, startPrivateRedis } from './private-redis.js';
import { dropNamespace, redisAvailable, TEST_REDIS_URL, testNamespace } from './redis.js';
import { loseNamespaceData, pauseRedisServer } from './redis-faults.js';
import { redisRequired } from './redis-probe.js';
import { settledWithin } from './settle.js';

let clients: RedisClientType[] = [];

async function connected(url: string, reconnect = false): Promise<RedisClientType> {
  const client = createClient({ url, socket: { reconnectStrategy: reconnect ? () => 50 : false } }) as RedisClientType;
  client.on('error', () => {});
  clients.push(client);
  await client.connect();
  return client;
}

afterEach(() => {
  for (const client of clients) if (client.isOpen) client.destroy();
  clients = [];
});

describe.skipIf(!redisAvailable)('losing a namespace’s data on the shared test Redis', () => {
  const mine = testNamespace();
  const other = testNamespace();
  afterAll(async () => {
    await dropNamespace(mine);
    await dropNamespace(other);
  });

  it('deletes every key of the namespace, Keyv’s included, and nothing else', async () => {
    const redis = await connected(TEST_REDIS_URL);
    await redis.set(`${mine}:claim:1`, 'x');
    await redis.set(`${mine}::keyv`, 'y');
    await redis.hSet(`${mine}:job:1`, { status: 'active' });
    await redis.set(`${other}:claim:1`, 'kept');
    await loseNamespaceData(mine);
    expect(await redis.keys(`${mine}*`)).toEqual([]);
    expect(await redis.get(`${other}:claim:1`)).toBe('kept');
  });
});

// A private server: CLIENT PAUSE and restarts on the shared one would hang or empty every parallel test.
const required = redisRequired(process.env);
describe.skipIf(!privateRedisAvailable && !required)('a private Redis, paused and restarted', () => {
  let redis: PrivateRedis | undefined;
  beforeAll(async () => {
    if (!privateRedisAvailable)
      throw new Error('redis-server is not on PATH: install it (apt-get install redis-server)');
    redis = await startPrivateRedis();
  });
  afterAll(async () => redis?.stop());
  const url = () => (redis as PrivateRedis).url;

  it('CLIENT PAUSE ALL holds every command until the pause ends', async () => {
    const client = await connected(url());
    await client.set('k', 'v');
    await pauseRedisServer(url(), 600);
    const started = performance.now();
    const read = client.get('k');
    expect(await settledWithin(read, 300)).toBe('pending');
    expect(await read).toBe('v');
    expect(performance.now() - started).toBeGreaterThanOrEqual(450);
  });

  it('CLIENT PAUSE WRITE holds writes and answers reads', async () => {
    const client = await connected(url());
    const reader = await connected(url());
    await pauseRedisServer(url(), 600, 'WRITE');
    const write = client.set('k', 'later');
    expect(await settledWithin(reader.get('missing'), 300)).toEqual({ value: null });
    expect(await settledWithin(write, 100)).toBe('pending');
    expect(await write).toBe('OK');
  });

  it('restarts empty, as a crash without persistence, and a reconnecting client finds nothing', async () => {
    const client = await connected(url(), true);
    await client.set('k', 'v');
    await (redis as PrivateRedis).restart();
    await expect.poll(async () => client.isReady && (await client.exists('k')), { timeout: 3_000 }).toBe(0);
  });
});
