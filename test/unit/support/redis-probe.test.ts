import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { probeRedis, redisVerdict } from '../../support/redis-probe.js';

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `npm test` without Redis: its suites skip with one line, memory suites still run; CI requires it. */
describe('the Redis probe', () => {
  it('against a closed port answers why, instead of throwing "The client is closed"', async () => {
    const url = `redis://127.0.0.1:${await closedPort()}/15`;
    const failure = await probeRedis(url);
    expect(failure).toMatch(/ECONNREFUSED|connect/i);
    expect(failure).not.toContain('The client is closed');
  });

  it('skips with one line saying why on a developer machine', () => {
    const verdict = redisVerdict('redis://127.0.0.1:1/15', 'connect ECONNREFUSED', {});
    expect(verdict).toEqual({ available: false, skipLine: expect.stringContaining('[redis tests skipped]') });
    if (!verdict.available) expect(verdict.skipLine.split('\n')).toHaveLength(1);
  });

  it.each([{ CI: 'true' }, { REQUIRE_REDIS: '1' }])('fails the run with a clear message under %o', (env) => {
    expect(() => redisVerdict('redis://127.0.0.1:1/15', 'connect ECONNREFUSED', env)).toThrow(
      /Redis tests are required here .* is unreachable: connect ECONNREFUSED\. Start redis-server/,
    );
  });

  it('lets the Redis suites run when Redis answers', () => {
    expect(redisVerdict('redis://127.0.0.1:6379/15', undefined, { CI: 'true' })).toEqual({ available: true });
  });
});
