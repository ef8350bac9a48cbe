import { describe, expect, it } from 'vitest';
import { useClockedSimulator } from '../fakes/start-simulator.js';
import { call, documentedJob, expectDocumented, expectDocumentedBody, JOBS_PATH, VISITORS_PATH } from './http.js';

// Answers the documents allow (no job field is required; any 4xx carries {"error"}) that the bot may never have
// seen from the simulator's defaults, each set by a test over HTTP as an out-of-process test would.

const DURATION = 1000;

describe('switches a test sets over HTTP', () => {
  const { sim, clock } = useClockedSimulator({ jobDurationMs: DURATION });

  async function setSwitch(body: object) {
    const answer = await call(sim().url, 'POST', '/__sim/faults', body, {});
    expect(answer.status, JSON.stringify(answer.json)).toBe(201);
  }
  const create = (prompt = 'Add a quickstart') => call(sim().url, 'POST', JOBS_PATH, { prompt });
  const get = (id: string) => call(sim().url, 'GET', `${JOBS_PATH}/${id}`);

  it.each([
    ['feedback', '/v1/analytics/proj_1/feedback'],
    ['feedback-by-page', '/v1/analytics/proj_1/feedback/by-page'],
    ['searches', '/v1/analytics/proj_1/searches'],
    ['assistant', '/v1/analytics/proj_1/assistant'],
  ] as const)('switches %s to a 503, a rate limit or a reset, and only it', async (operation, path) => {
    await setSwitch({ kind: 'status', status: 503, match: { operation } });
    await setSwitch({ kind: 'rate-limit', retryAfterSec: 30, match: { operation } });
    expect((await call(sim().url, 'GET', VISITORS_PATH)).status).toBe(200);
    const failed = await call(sim().url, 'GET', path);
    expect(failed.status).toBe(503);
    expectDocumentedBody(operation, failed);
    const limited = await call(sim().url, 'GET', path);
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '30']);
    expect((await call(sim().url, 'GET', path)).status).toBe(200);
    await setSwitch({ kind: 'reset', match: { operation } });
    await expect(call(sim().url, 'GET', path)).rejects.toThrow();
  });

  it('answers a create with 201 {"id"} and no other field, while the job runs as usual', async () => {
    await setSwitch({ kind: 'job', keep: ['id'], match: { operation: 'create' } });
    const created = await create();
    expect(created.status).toBe(201);
    expect(Object.keys(created.json as object)).toEqual(['id']);
    expectDocumented('create', created);
    const { id } = created.json as { id: string };
    expect(documentedJob((await get(id)).json)).toMatchObject({ id, status: 'active', prLink: null });
  });

  it('leaves the status out of as many answers as asked, then answers it again', async () => {
    const { id } = documentedJob((await create()).json);
    await setSwitch({ kind: 'job', omit: ['status'], count: 2, match: { operation: 'get' } });
    for (let i = 0; i < 2; i++) {
      const answer = await get(id);
      expectDocumented('get', answer);
      expect(answer.json).toMatchObject({ id });
      expect(answer.json).not.toHaveProperty('status');
    }
    expect((await get(id)).json).toMatchObject({ status: 'active' });
  });

  it.each(['queued', 'cancelled', 'waiting_for_review'])(
    'answers a status the bot does not know: %s',
    async (status) => {
      await setSwitch({ kind: 'job', set: { status }, count: 'Infinity' });
      const created = await create();
      expect(created).toMatchObject({ status: 201, json: { status } });
      const { id } = created.json as { id: string };
      expect((await get(id)).json).toMatchObject({ id, status });
      expect(sim().getJob(id)?.status).toBe('active'); // the simulator's own record is untouched
    },
  );

  it('answers optional fields absent, or null where the documents allow null', async () => {
    const { id } = documentedJob((await create()).json);
    await setSwitch({ kind: 'job', keep: ['id', 'status'] });
    const bare = await get(id);
    expect(bare.json).toEqual({ id, status: 'active' });
    expectDocumented('get', bare);

    await setSwitch({ kind: 'job', set: { prLink: null, archivedAt: null, source: { ref: null } } });
    const nulls = await get(id);
    expect(nulls.json).toMatchObject({ prLink: null, archivedAt: null, source: { ref: null } });
    expect(nulls.json).not.toHaveProperty('source.repository');
    expectDocumented('get', nulls);
  });

  it('leaves prLink out of a completed job only, and counts only the answers it reshaped', async () => {
    const { id } = documentedJob((await create()).json);
    await setSwitch({ kind: 'job', omit: ['prLink'], whenStatus: 'completed', count: 1 });
    expect((await get(id)).json).toMatchObject({ status: 'active', prLink: null });
    clock.advance(DURATION);
    const completed = await get(id);
    expect(completed.json).toMatchObject({ status: 'completed' });
    expect(completed.json).not.toHaveProperty('prLink');
    expect((await get(id)).json).toMatchObject({ prLink: expect.stringMatching(/\/pull\/\d+$/) });
  });

  it.each([
    [413, 'create', 'Prompt is too large'],
    [409, 'follow-up', 'Job is busy'],
    [402, 'create', 'Plan limit reached'],
    [422, 'follow-up', 'Prompt could not be processed'],
    [408, 'get', 'Request timeout'],
  ] as const)('answers %i with {"error"} on %s only, as many times as asked', async (status, operation, error) => {
    const { id } = documentedJob((await create()).json);
    await setSwitch({ kind: 'status', status, error, count: 2, match: { operation } });
    const send = () =>
      operation === 'create'
        ? create()
        : operation === 'get'
          ? get(id)
          : call(sim().url, 'POST', `${JOBS_PATH}/${id}/message`, { prompt: 'more' });
    expect((await call(sim().url, 'GET', VISITORS_PATH)).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const answer = await send();
      expect(answer).toMatchObject({ status, json: { error } });
      expectDocumentedBody(operation, answer);
    }
    expect((await send()).status).toBeLessThan(300);
  });

  it('answers a body that is not JSON, with the status and type asked for', async () => {
    const { id } = documentedJob((await create()).json);
    await setSwitch({ kind: 'not-json', match: { operation: 'get' } });
    const html = await get(id);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('text/html');
    expect(html.json).toBeUndefined();
    expect(html.text).toContain('<html>');

    await setSwitch({ kind: 'not-json', status: 502, body: '{"id": "trunc', contentType: 'application/json' });
    const truncated = await call(sim().url, 'GET', VISITORS_PATH);
    expect(truncated).toMatchObject({ status: 502, text: '{"id": "trunc', json: undefined });
    expect((await get(id)).status).toBe(200);
  });

  it('writes feedback entries’ paths as their pages’ URLs, as the documents allow, for as many answers as asked', async () => {
    const path = '/v1/analytics/proj_1/feedback?dateFrom=2025-05-01&dateTo=2025-06-01&limit=20';
    const paths = async () => {
      const answer = await call(sim().url, 'GET', path);
      expectDocumented('feedback', answer);
      return (answer.json as { feedback: { path: string }[] }).feedback.map((entry) => entry.path);
    };
    const plain = await paths();
    expect(plain.length).toBeGreaterThan(0);
    await setSwitch({ kind: 'feedback', pathAs: 'url', match: { operation: 'feedback' } });
    expect(await paths()).toEqual(plain.map((p) => `https://docs.example.com${p}`));
    expect(await paths()).toEqual(plain);
    const byPage = await call(sim().url, 'GET', '/v1/analytics/proj_1/feedback/by-page?dateFrom=2025-05-01');
    expect(JSON.stringify(byPage.json)).not.toContain('https://');
  });

  it('sets documented values on a list answer’s rows, only on rows that have the field, and on the answer itself', async () => {
    const path = '/v1/analytics/proj_1/feedback?dateFrom=2025-05-01&dateTo=2025-06-01&limit=20';
    const comment = `<!channel> ${'x'.repeat(5_000)}`;
    await setSwitch({
      kind: 'rows',
      set: { comment, createdAt: null, contact: null },
      match: { operation: 'feedback' },
    });
    const shaped = await call(sim().url, 'GET', path);
    expectDocumented('feedback', shaped);
    const entries = (shaped.json as { feedback: Record<string, unknown>[] }).feedback;
    expect(entries.every((entry) => entry.comment === comment && entry.createdAt === null)).toBe(true);
    expect(entries.some((entry) => !('contact' in entry))).toBe(true); // not every entry is contextual
    expect((await call(sim().url, 'GET', path)).text).not.toContain('<!channel>');

    await setSwitch({
      kind: 'rows',
      set: { hits: 0 },
      first: 1,
      answer: { totalSearches: 1e15 },
      match: { operation: 'searches' },
    });
    const searches = await call(sim().url, 'GET', '/v1/analytics/proj_1/searches?dateFrom=2025-05-01');
    expectDocumented('searches', searches);
    const rows = searches.json as { searches: { hits: number }[]; totalSearches: number };
    expect(rows.totalSearches).toBe(1e15);
    expect(rows.searches.map((row) => row.hits > 0)).toEqual([false, ...rows.searches.slice(1).map(() => true)]);

    await setSwitch({
      kind: 'rows',
      set: { path: '/a|b>c&d' },
      answer: { totals: { human: 0, ai: 0, total: 0 } },
      match: { operation: 'visitors' },
    });
    const visitors = await call(sim().url, 'GET', VISITORS_PATH);
    expectDocumented('visitors', visitors);
    const shown = visitors.json as { totals: { total: number }; visitors: { path: string }[] };
    expect(shown.totals.total).toBe(0);
    expect(new Set(shown.visitors.map((row) => row.path))).toEqual(new Set(['/a|b>c&d']));
  });

  it.each([
    { kind: 'rows', set: { comment: 'no operation' } },
    { kind: 'rows', set: { comment: 'not a list' }, match: { operation: 'caller-stats' } },
    { kind: 'rows', set: { hits: 'many' }, match: { operation: 'searches' } },
    { kind: 'rows', set: { searchQuery: null }, match: { operation: 'searches' } },
    { kind: 'rows', set: { title: 'x' }, match: { operation: 'assistant' } },
    { kind: 'rows', answer: { totalSearches: -1 }, match: { operation: 'searches' } },
    { kind: 'job', keep: ['title'] },
    { kind: 'job', set: { prLink: 'not a url' } },
    { kind: 'job', set: { model: null } },
    { kind: 'job', set: { status: 3 } },
    { kind: 'status', status: 302 },
    { kind: 'status', status: 413, eror: 'typo' },
    { kind: 'not-json', status: 100 },
    { kind: 'reset', match: { operation: 'delete' } },
    { kind: 'slow', delayMs: 10, count: 0 },
    { kind: 'feedback', pathAs: 'path' },
  ])('refuses a switch the documents would not allow or that is misspelt: %j', async (body) => {
    const answer = await call(sim().url, 'POST', '/__sim/faults', body, {});
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: expect.stringMatching(/\S/) });
  });
});
