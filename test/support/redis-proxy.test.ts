import { createClient, type RedisClientType } from '@keyv/redis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dropNamespace, redisAvailable, TEST_REDIS_URL, testNamespace } from './redis.js';
import { type RedisProxy, startRedisProxy } from './redis-proxy.js';
import { settledWithin } from './settle.js';

const HANG_MS = 300;

describe('Redis proxy', () => {
  let proxy: RedisProxy;
  let namespace: string;
  let clients: RedisClientType[] = [];

  /** A node-redis client (not connected): through the proxy unless told otherwise; no reconnects unless asked. */
  function client(url = proxy.url, reconnect = false): RedisClientType {
    const created = createClient({
      url,
      socket: { connectTimeout: 2_000, reconnectStrategy: reconnect ? () => 50 : false },
    }) as RedisClientType;
    created.on('error', () => {});
    clients.push(created);
    return created;
  }

  async function connected(url = proxy.url, reconnect = false): Promise<RedisClientType> {
    const created = client(url, reconnect);
    await created.connect();
    return created;
  }

  beforeEach(async (context) => {
    if (!redisAvailable) context.skip();
    proxy = await startRedisProxy();
    namespace = testNamespace();
  });

  afterEach(async () => {
    for (const open of clients) if (open.isOpen) open.destroy();
    clients = [];
    await proxy?.close();
    if (redisAvailable) await dropNamespace(namespace);
  });

  it('forwards commands both ways, to the same database as the URL it fronts', async () => {
    expect(proxy.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+\/15$/);
    const through = await connected();
    await through.set(`${namespace}:k`, 'v');
    const direct = await connected(TEST_REDIS_URL);
    expect(await direct.get(`${namespace}:k`)).toBe('v');
    expect(await through.get(`${namespace}:k`)).toBe('v');
    expect(proxy.connectionCount()).toBe(1);
  });

  it('holds a command while paused, with the connection left open, and answers it after resume', async () => {
    const through = await connected();
    await through.set(`${namespace}:k`, 'before');
    proxy.pause();
    const pending = through.get(`${namespace}:k`);
    expect(await settledWithin(pending, HANG_MS)).toBe('pending');
    expect(through.isReady).toBe(true);
    expect(proxy.connectionCount()).toBe(1);
    await proxy.resume();
    expect(await pending).toBe('before');
  });

  it('accepts a connection while paused, but the client cannot finish connecting until resume', async () => {
    proxy.pause();
    const late = client();
    const connecting = late.connect();
    expect(await settledWithin(connecting, HANG_MS)).toBe('pending');
    expect(proxy.acceptedCount()).toBe(1);
    await proxy.resume();
    await connecting;
    expect(await late.ping()).toBe('PONG');
  });

  it('drops open connections: the command in flight fails, and a reconnecting client comes back', async () => {
    const through = await connected(proxy.url, true);
    proxy.pause();
    const inFlight = through.get(`${namespace}:k`);
    proxy.dropConnections();
    await proxy.resume();
    await expect(inFlight).rejects.toThrow();
    await expect.poll(() => through.isReady, { timeout: 2_000 }).toBe(true);
    expect(await through.ping()).toBe('PONG');
    expect(proxy.acceptedCount()).toBe(2);
  });

  it('drops the connection a command naming a key is sent on: that command never runs, others go on', async () => {
    const through = await connected(proxy.url, true);
    const other = await connected();
    proxy.dropCommandsWith(`${namespace}:lost`);
    await expect(through.set(`${namespace}:lost`, 'v')).rejects.toThrow();
    await expect(other.set(`${namespace}:kept`, 'v')).resolves.toBe('OK');
    await expect.poll(() => through.isReady, { timeout: 2_000 }).toBe(true);
    expect(await through.set(`${namespace}:also-kept`, 'v')).toBe('OK');
    proxy.dropCommandsWith(undefined);
    expect(await through.set(`${namespace}:lost`, 'later')).toBe('OK');
    const direct = await connected(TEST_REDIS_URL);
    expect(await direct.mGet([`${namespace}:kept`, `${namespace}:also-kept`, `${namespace}:lost`])).toEqual([
      'v',
      'v',
      'later',
    ]);
  });

  it('refuses new connections while leaving open ones working, and accepts again after resume', async () => {
    const open = await connected();
    proxy.refuse();
    await expect(client().connect()).rejects.toThrow(/ECONNREFUSED/);
    expect(await open.ping()).toBe('PONG');
    await proxy.resume();
    expect(await (await connected()).ping()).toBe('PONG');
  });

  it('closes every connection and refuses afterwards; closing twice is fine', async () => {
    const open = await connected();
    await proxy.close();
    await proxy.close();
    await expect.poll(() => open.isOpen, { timeout: 2_000 }).toBe(false);
    await expect(client().connect()).rejects.toThrow(/ECONNREFUSED/);
  });
});
