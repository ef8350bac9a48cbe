import { describe, expect, it } from 'vitest';
import type { Operation } from '../../tools/simulator/contract.js';
import { useClockedSimulator } from '../fakes/start-simulator.js';
import { type Answer, call, documentedJob, expectDocumented, JOBS_PATH, VISITORS_PATH } from './http.js';

const DURATION = 1000;

describe('every answer the simulator sends is one the documents describe', () => {
  const { sim, clock } = useClockedSimulator({
    jobDurationMs: DURATION,
    createLimitPerHour: 2,
    followUpLimitPerHour: 1,
  });

  /** Sends a request and checks its answer against the documents; returns the answer for more checks. */
  async function documented(operation: Operation, method: string, path: string, body?: unknown, headers?: object) {
    const answer: Answer = await call(sim().url, method, path, body, headers as Record<string, string> | undefined);
    expectDocumented(operation, answer);
    return answer;
  }

  it('for JOBS_PATH, through their life: created, running, ended each way, followed up, archived, limited', async () => {
    const created = await documented('create', 'POST', JOBS_PATH, { prompt: 'Add a quickstart' });
    expect(created.status).toBe(201);
    const { id } = documentedJob(created.json);
    expect((await documented('get', 'GET', `${JOBS_PATH}/${id}`)).status).toBe(200);
    clock.advance(DURATION);
    expect(documentedJob((await documented('get', 'GET', `${JOBS_PATH}/${id}`)).json).prLink).toMatch(/^https:/);

    const followed = await documented('follow-up', 'POST', `${JOBS_PATH}/${id}/message`, { prompt: 'archive it' });
    expect(followed.status).toBe(200);
    clock.advance(DURATION);
    const archived = documentedJob((await documented('get', 'GET', `${JOBS_PATH}/${id}`)).json);
    expect(archived).toMatchObject({ status: 'archived', archivedAt: expect.any(String) });
    const refused = await documented('follow-up', 'POST', `${JOBS_PATH}/${id}/message`, { prompt: 'more' });
    expect(refused.status).toBe(400);

    const second = documentedJob((await documented('create', 'POST', JOBS_PATH, { prompt: 'please fail' })).json);
    clock.advance(DURATION);
    expect(documentedJob((await documented('get', 'GET', `${JOBS_PATH}/${second.id}`)).json).status).toBe('failed');
    const limitedFollowUp = await documented('follow-up', 'POST', `${JOBS_PATH}/${second.id}/message`, { prompt: 'x' });
    expect(limitedFollowUp.status).toBe(429);
    const limitedCreate = await documented('create', 'POST', JOBS_PATH, { prompt: 'a third' });
    expect(limitedCreate.status).toBe(429);
    expect(limitedCreate.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it.each([
    ['no body', undefined],
    ['a body that is not JSON', '{nope'],
    ['no prompt', {}],
    ['an empty prompt', { prompt: '' }],
    ['a prompt that is not a string', { prompt: 3 }],
  ])('answers a create or follow-up with %s with the documented 400 {"error"}', async (_name, body) => {
    const create = await documented('create', 'POST', JOBS_PATH, body);
    expect(create.status).toBe(400);
    expect(create.json).toEqual({ error: expect.stringMatching(/\S/) });
    const { id } = documentedJob((await call(sim().url, 'POST', JOBS_PATH, { prompt: 'x' })).json);
    const followUp = await documented('follow-up', 'POST', `${JOBS_PATH}/${id}/message`, body);
    expect(followUp.status).toBe(400);
  });

  it('answers an unknown job with the documented 404, on get and on follow-up', async () => {
    expect((await documented('get', 'GET', `${JOBS_PATH}/nope`)).status).toBe(404);
    expect((await documented('follow-up', 'POST', `${JOBS_PATH}/nope/message`, { prompt: 'x' })).status).toBe(404);
  });

  it.each(['limit=0', 'limit=251', 'offset=-1', 'dateFrom=2025-02-30', 'dateFrom=2025-04-02&dateTo=2025-04-01'])(
    'answers visitors?%s with the documented 400 {"error", "details"}',
    async (query) => {
      const answer = await documented('visitors', 'GET', `${VISITORS_PATH}?${query}`);
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ details: [{ message: expect.any(String) }] });
    },
  );

  it('answers visitors pages, empty ranges and a server error in the documented shapes', async () => {
    expect((await documented('visitors', 'GET', `${VISITORS_PATH}?dateFrom=2025-03-01&limit=3`)).status).toBe(200);
    expect((await documented('visitors', 'GET', `${VISITORS_PATH}?dateFrom=2030-01-01&dateTo=2030-01-02`)).status).toBe(
      200,
    );
    sim().injectFault({ kind: 'status', status: 500, count: 1 });
    expect((await documented('visitors', 'GET', VISITORS_PATH)).status).toBe(500);
  });

  const ANALYTICS = '/v1/analytics/proj_1';
  const RANGE = 'dateFrom=2025-03-01&dateTo=2025-05-01';
  it.each([
    ['feedback', `feedback?${RANGE}&limit=5`],
    ['feedback', `feedback?${RANGE}&source=contextual&status=pending,in_progress`],
    ['feedback', `feedback?${RANGE}&source=code_snippet`],
    ['feedback', `feedback?${RANGE}&cursor=o5&limit=100`],
    ['feedback-by-page', `feedback/by-page?${RANGE}`],
    ['feedback-by-page', `feedback/by-page?${RANGE}&source=thumbs_only&limit=100`],
    ['searches', `searches?${RANGE}&limit=3`],
    ['searches', `searches?${RANGE}&cursor=o3`],
    ['assistant', `assistant?${RANGE}&limit=7`],
    ['caller-stats', `assistant/caller-stats?${RANGE}`],
    ['feedback', 'feedback?dateFrom=2030-01-01&dateTo=2030-01-02'],
  ] as const)('answers %s (%s) with its documented 200', async (operation, path) => {
    expect((await documented(operation, 'GET', `${ANALYTICS}/${path}`)).status).toBe(200);
  });

  it.each([
    ['feedback', 'feedback?limit=101'],
    ['feedback', 'feedback?source=email'],
    ['feedback', 'feedback?status=pending,open'],
    ['feedback', 'feedback?cursor=not-ours'],
    ['feedback-by-page', 'feedback/by-page?limit=0'],
    ['searches', 'searches?dateFrom=2025-02-30'],
    ['assistant', 'assistant?limit=1001'],
    ['assistant', 'assistant?cursor=o5'],
    ['assistant-thread', 'assistant/threads/not-a-ulid'],
    ['caller-stats', 'assistant/caller-stats?dateFrom=2025-04-02&dateTo=2025-04-01'],
  ] as const)('answers %s (%s) with the documented 400 {"error", "details"}', async (operation, path) => {
    const answer = await documented(operation, 'GET', `${ANALYTICS}/${path}`);
    expect(answer.status).toBe(400);
  });

  it('answers a thread by the id of a conversation, and 404 for an id it never gave', async () => {
    const page = await documented('assistant', 'GET', `${ANALYTICS}/assistant?${RANGE}&limit=1`);
    const id = (page.json as { conversations: { id: string }[] }).conversations[0]?.id;
    expect((await documented('assistant-thread', 'GET', `${ANALYTICS}/assistant/threads/${id}`)).status).toBe(200);
    const unknown = await documented(
      'assistant-thread',
      'GET',
      `${ANALYTICS}/assistant/threads/01ARZ3NDEKTSV4RRFFQ69G5FAV`,
    );
    expect(unknown.status).toBe(404);
  });

  it.each(['feedback', 'searches', 'assistant'] as const)(
    'answers %s with a switched 500 in the error shape',
    async (op) => {
      sim().injectFault({ kind: 'status', status: 500, count: 1, match: { operation: op } });
      expect((await documented(op, 'GET', `${ANALYTICS}/${op}`)).status).toBe(500);
    },
  );

  it.each([
    ['create', 'POST', JOBS_PATH, { prompt: 'x' }],
    ['get', 'GET', `${JOBS_PATH}/any`, undefined],
    ['follow-up', 'POST', `${JOBS_PATH}/any/message`, { prompt: 'x' }],
    ['visitors', 'GET', VISITORS_PATH, undefined],
    ['feedback', 'GET', '/v1/analytics/proj_1/feedback', undefined],
    ['searches', 'GET', '/v1/analytics/proj_1/searches', undefined],
    ['assistant-thread', 'GET', '/v1/analytics/proj_1/assistant/threads/01ARZ3NDEKTSV4RRFFQ69G5FAV', undefined],
  ] as const)('answers %s without a key with 401 {"error"}', async (operation, method, path, body) => {
    expect((await documented(operation, method, path, body, {})).status).toBe(401);
  });
});
