import { describe, expect, it } from 'vitest';
import { useSimulator } from '../fakes/start-simulator.js';
import { AUTH, call, JOBS_PATH, VISITORS_PATH } from './http.js';

const sim = useSimulator();

describe('fault injection', () => {
  it('answers a 503 burst, then recovers', async () => {
    sim().injectFault({ kind: 'status', status: 503, count: 2 });
    for (let i = 0; i < 2; i++) {
      const { status, json } = await call(sim().url, 'GET', VISITORS_PATH);
      expect(status).toBe(503);
      expect(json).toEqual({ error: expect.any(String) });
    }
    expect((await call(sim().url, 'GET', VISITORS_PATH)).status).toBe(200);
  });

  it('only hits matching requests', async () => {
    sim().injectFault({ kind: 'status', status: 500, count: Number.POSITIVE_INFINITY, match: { method: 'post' } });
    expect((await call(sim().url, 'GET', VISITORS_PATH)).status).toBe(200);
    expect((await call(sim().url, 'POST', JOBS_PATH, { prompt: 'x' })).status).toBe(500);
    expect((await call(sim().url, 'POST', JOBS_PATH, { prompt: 'x' })).status).toBe(500);
    sim().clearFaults();
    expect((await call(sim().url, 'POST', JOBS_PATH, { prompt: 'x' })).status).toBe(201);

    sim().injectFault({ kind: 'status', status: 502, count: 1, match: { path: /\/job\/[^/]+$/ } });
    expect((await call(sim().url, 'GET', VISITORS_PATH)).status).toBe(200);
    expect((await call(sim().url, 'GET', `${JOBS_PATH}/abc`)).status).toBe(502);
  });

  it('resets the connection without answering', async () => {
    sim().injectFault({ kind: 'reset', count: 1 });
    await expect(fetch(`${sim().url}${VISITORS_PATH}`, { headers: AUTH })).rejects.toThrow();
    expect((await call(sim().url, 'GET', VISITORS_PATH)).status).toBe(200);
  });

  it('delays answers', async () => {
    sim().injectFault({ kind: 'slow', delayMs: 200, count: 1 });
    const started = performance.now();
    expect((await call(sim().url, 'GET', VISITORS_PATH)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('answers a 429 storm with Retry-After', async () => {
    sim().injectFault({ kind: 'rate-limit', retryAfterSec: 7, count: 3 });
    for (let i = 0; i < 3; i++) {
      const { status, headers, json } = await call(sim().url, 'GET', VISITORS_PATH);
      expect(status).toBe(429);
      expect(headers.get('retry-after')).toBe('7');
      expect(json).toEqual({ error: 'Rate limit exceeded' });
    }
    expect((await call(sim().url, 'GET', VISITORS_PATH)).status).toBe(200);
  });

  it('takes faults over HTTP, with no auth', async () => {
    const added = await call(
      sim().url,
      'POST',
      '/__sim/faults',
      { kind: 'status', status: 503, count: 'Infinity', match: { path: '^/v2/' } },
      {},
    );
    expect(added.status).toBe(201);
    expect((await call(sim().url, 'POST', JOBS_PATH, { prompt: 'x' })).status).toBe(503);
    expect((await call(sim().url, 'GET', VISITORS_PATH)).status).toBe(200);
    expect((await call(sim().url, 'DELETE', '/__sim/faults', undefined, {})).status).toBe(204);
    expect((await call(sim().url, 'POST', JOBS_PATH, { prompt: 'x' })).status).toBe(201);

    const bad = await call(sim().url, 'POST', '/__sim/faults', { kind: 'status', status: 302 }, {});
    expect(bad.status).toBe(400);
    const badRegex = await call(sim().url, 'POST', '/__sim/faults', { kind: 'reset', match: { path: '(' } }, {});
    expect(badRegex.status).toBe(400);
    expect(sim().requests.every((request) => !request.path.startsWith('/__sim'))).toBe(true);
  });
});
