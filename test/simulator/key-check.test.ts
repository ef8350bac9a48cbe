import { describe, expect, it } from 'vitest';
import { VisitorsResponseSchema } from '../../tools/simulator/contract.js';
import type { UnservedProjectStatus } from '../../tools/simulator/server.js';
import { useSimulator } from '../fakes/start-simulator.js';
import { call } from './http.js';

// The check the bot can make before saving a key and a project, worked through against the simulator: one
// documented, read-only, cheap request, `GET /v1/analytics/{projectId}/visitors` for one day with `limit=1`.
// Its success is a 200 whose body parses as `VisitorsByPageResponse`, so it proves the pair works; no job is
// started and no hourly slot spent.

type KeyCheck = 'ok' | 'key refused' | 'project unknown' | 'service down';

async function checkKey(apiUrl: string, key: string, project: string, timeoutMs = 5_000): Promise<KeyCheck> {
  const today = new Date().toISOString().slice(0, 10);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const query = new URLSearchParams({ dateFrom: today, dateTo: tomorrow, limit: '1' });
  let response: Response;
  try {
    response = await fetch(`${apiUrl}/v1/analytics/${encodeURIComponent(project)}/visitors?${query}`, {
      headers: { Authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch {
    return 'service down';
  }
  if (response.status === 401) return 'key refused';
  if (response.status === 403 || response.status === 404) return 'project unknown';
  const body: unknown = await response.json().catch(() => undefined);
  return response.status === 200 && VisitorsResponseSchema.safeParse(body).success ? 'ok' : 'service down';
}

describe.each([401, 403, 404] as const)('checking a key and a project (unserved project answered %i)', (status) => {
  const unservedProjectStatus: UnservedProjectStatus = status;
  const sim = useSimulator({ keys: { keys: { mint_a: ['proj_a'] }, unservedProjectStatus } });

  it('tells a working pair, a refused key and an unknown project apart', async () => {
    expect(await checkKey(sim().url, 'mint_a', 'proj_a')).toBe('ok');
    expect(await checkKey(sim().url, 'mint_wrong', 'proj_a')).toBe('key refused');
    // A service that answers 401 for another project's key cannot be told from a wrong key: the key is blamed.
    expect(await checkKey(sim().url, 'mint_a', 'proj_b')).toBe(status === 401 ? 'key refused' : 'project unknown');
    expect(sim().counts()).toMatchObject({ creates: 0, followUps: 0 });
    expect(sim().requests.map((r) => `${r.method} ${r.path} ${r.query.limit}`)).toEqual([
      'GET /v1/analytics/proj_a/visitors 1',
      'GET /v1/analytics/proj_a/visitors 1',
      'GET /v1/analytics/proj_b/visitors 1',
    ]);
  });
});

describe('checking a key while the service misbehaves', () => {
  const sim = useSimulator({ keys: { keys: { mint_a: ['proj_a'] } } });

  it.each([
    ['a 503', { kind: 'status', status: 503 }],
    ['a 500', { kind: 'status', status: 500 }],
    ['a 429', { kind: 'rate-limit', retryAfterSec: 30 }],
    ['a reset connection', { kind: 'reset' }],
    ['an HTML page with 200', { kind: 'not-json' }],
    ['no answer in time', { kind: 'slow', delayMs: 1_000 }],
  ])('says the service is down on %s, and ok once it answers', async (_name, fault) => {
    expect((await call(sim().url, 'POST', '/__sim/faults', fault, {})).status).toBe(201);
    expect(await checkKey(sim().url, 'mint_a', 'proj_a', 300)).toBe('service down');
    expect(await checkKey(sim().url, 'mint_a', 'proj_a')).toBe('ok');
  });
});

describe('why not probe with a job id that cannot exist', () => {
  const sim = useSimulator({ keys: { keys: { mint_a: ['proj_a'] }, unservedProjectStatus: 404 } });

  it('cannot tell a working pair from an unknown project when the service answers 404 for both', async () => {
    const probe = (project: string) =>
      call(sim().url, 'GET', `/v2/agent/${project}/job/00000000-probe`, undefined, { Authorization: 'Bearer mint_a' });
    const working = await probe('proj_a');
    const unknown = await probe('proj_b');
    expect(working.status).toBe(404); // the documented "Job not found": the success signal is an error
    expect(unknown.status).toBe(working.status); // only the undocumented message text differs
  });
});
