import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMintlifyClient, type MintlifyClientOptions } from '../../../src/mintlify/client.js';
import {
  describeFailure,
  type ServiceFailure,
  type ServiceFailureCode,
  type ServiceResult,
} from '../../../src/mintlify/failure.js';
import type { VisitorsQuery } from '../../../src/mintlify/schemas.js';
import { keyFingerprint, startSimulator } from '../../../tools/simulator/server.js';
import { useSimulator } from '../../fakes/start-simulator.js';
import { captureLogs } from '../../support/logs.js';

const API_KEY = 'mint_client_test_SeCrEt_9876';
const PROJECT = 'proj_1';
const JOB_PATH = `/v2/agent/${PROJECT}/job`;
const VISITORS_PATH = `/v1/analytics/${PROJECT}/visitors`;
const QUERY: VisitorsQuery = { dateFrom: '2025-05-01', dateTo: '2025-05-08' };

const sim = useSimulator();

/** Every client gets its own captured log, so each test can check that the key never reached it. */
let logTexts: (() => string)[] = [];
afterEach(() => {
  for (const text of logTexts) expect(text()).not.toContain(API_KEY);
  logTexts = [];
});

/** A client with every call made for one project (`PROJECT` unless told), as most tests need. */
function client(options: Partial<MintlifyClientOptions> & { projectId?: string } = {}) {
  const captured = captureLogs();
  logTexts.push(captured.text);
  const { projectId = PROJECT, ...rest } = options;
  const c = createMintlifyClient({
    apiUrl: sim().url,
    keyFor: () => API_KEY,
    log: captured.log,
    timeoutMs: 2_000,
    ...rest,
  });
  return {
    createJob: (prompt: string) => c.createJob(projectId, prompt),
    sendFollowUp: (jobId: string, prompt: string) => c.sendFollowUp(projectId, jobId, prompt),
    getJob: (jobId: string) => c.getJob(projectId, jobId),
    getVisitors: (query: VisitorsQuery) => c.getVisitors(projectId, query),
  };
}

/** Awaits a call that must succeed and returns its value. */
async function value<T>(promise: Promise<ServiceResult<T>>): Promise<T> {
  const result = await promise;
  if (!result.ok) throw new Error(`expected success, got ${describeFailure(result)}`);
  return result.value;
}

/**
 * Awaits a failed call, checks its code and that the API key is nowhere in it, and returns the failure with its
 * log line (`line`).
 */
async function failure<C extends ServiceFailureCode>(
  promise: Promise<ServiceResult<unknown>>,
  code: C,
): Promise<Extract<ServiceFailure, { code: C }> & { line: string; project: string }> {
  const result = await promise;
  if (result.ok) throw new Error('expected a failure');
  expect(result.failure.code).toBe(code);
  const line = describeFailure(result);
  expect(JSON.stringify({ ...result, line })).not.toContain(API_KEY);
  return { ...(result.failure as Extract<ServiceFailure, { code: C }>), line, project: result.project };
}

interface StubRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}
interface StubReply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/** A plain node:http server on 127.0.0.1 answering what the test scripts (for statuses the simulator never sends). */
const stubs: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((stub) => stub.close()));
});
async function startStub(reply: (req: StubRequest) => StubReply) {
  const requests: StubRequest[] = [];
  const server = createServer((req, res) => {
    const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers };
    requests.push(seen);
    req.resume();
    req.on('end', () => {
      const { status, body, headers } = reply(seen);
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stub = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  stubs.push(stub);
  return stub;
}
const json = (status: number, body: unknown, headers?: Record<string, string>): StubReply => ({
  status,
  body: JSON.stringify(body),
  ...(headers && { headers }),
});

describe('createJob', () => {
  it('posts the prompt with the bearer key and parses the 201 job', async () => {
    const job = await value(client().createJob('  Document the new webhook endpoint '));
    expect(job).toMatchObject({ id: expect.any(String), status: 'active' });
    expect(sim().getJob(job.id)?.id).toBe(job.id);
    expect(sim().requests).toEqual([
      {
        method: 'POST',
        path: JOB_PATH,
        query: {},
        body: { prompt: 'Document the new webhook endpoint' },
        keyFingerprint: keyFingerprint(API_KEY),
      },
    ]);
  });

  it.each(['', '   ', '\n\t '])('rejects the empty prompt %j before sending anything', async (prompt) => {
    const error = await failure(client().createJob(prompt), 'refused');
    expect(error.details).toEqual([expect.stringContaining('prompt is empty')]);
    expect(sim().requests).toHaveLength(0);
  });

  it('answers a 429 as rate_limited with the Retry-After delay', async () => {
    sim().injectFault({ kind: 'rate-limit', retryAfterSec: 42, count: 1 });
    const error = await failure(client().createJob('x'), 'rate_limited');
    expect(error.retryAfterMs).toBe(42_000);
    expect(error.code).toBe('rate_limited');
  });

  it("maps the simulator's own hourly create limit to rate_limited", async () => {
    const limited = await startSimulator({ createLimitPerHour: 1 });
    try {
      const c = client({ apiUrl: limited.url });
      await value(c.createJob('first'));
      const error = await failure(c.createJob('second'), 'rate_limited');
      expect(error.retryAfterMs).toBeGreaterThan(0);
      expect(error.retryAfterMs).toBeLessThanOrEqual(3_600_000);
      expect(limited.requests).toHaveLength(2);
    } finally {
      await limited.close();
    }
  });
});

describe('a project without a key', () => {
  it('is answered not_connected at once, nothing sent, for every call', async () => {
    const c = client({ keyFor: () => '' });
    await failure(c.createJob('Document the retries'), 'not_connected');
    await failure(c.sendFollowUp('job-1', 'more'), 'not_connected');
    const error = await failure(c.getJob('job-1'), 'not_connected');
    await failure(c.getVisitors(QUERY), 'not_connected');
    expect(error.line).toBe('get job (project proj_1): not connected in this workspace (no key for the project)');
    expect(sim().requests).toHaveLength(0);
  });
});

describe('sendFollowUp', () => {
  it('posts to the job and parses the 200 job', async () => {
    const c = client();
    const job = await value(c.createJob('first'));
    sim().endJob(job.id, { status: 'completed' });
    const updated = await value(c.sendFollowUp(job.id, 'also fix the typo'));
    expect(updated).toMatchObject({ id: job.id, status: 'active' });
    expect(sim().requests.at(-1)).toEqual({
      method: 'POST',
      path: `${JOB_PATH}/${job.id}/message`,
      query: {},
      body: { prompt: 'also fix the typo' },
      keyFingerprint: keyFingerprint(API_KEY),
    });
  });

  it('answers a 400 as refused carrying the service message', async () => {
    const c = client();
    const job = await value(c.createJob('first'));
    sim().endJob(job.id, { status: 'archived' });
    const error = await failure(c.sendFollowUp(job.id, 'more'), 'refused');
    expect(error.message).toBe('Job is archived');
    expect(error.line).toBe('send follow-up (project proj_1): Job is archived');
  });

  it('answers a 404 as not_found', async () => {
    await failure(client().sendFollowUp('missing-job', 'more'), 'not_found');
  });

  it('rejects an empty prompt before sending anything', async () => {
    await failure(client().sendFollowUp('job-1', ' '), 'refused');
    expect(sim().requests).toHaveLength(0);
  });
});

describe('getJob', () => {
  it('parses the 200 job', async () => {
    const c = client();
    const created = await value(c.createJob('first'));
    expect(await value(c.getJob(created.id))).toMatchObject({ id: created.id, status: 'active' });
    expect(sim().requests.at(-1)).toMatchObject({ method: 'GET', path: `${JOB_PATH}/${created.id}` });
  });

  it('reads a 200 without `id` (the document requires no field) as the job it asked for', async () => {
    const c = client();
    const created = await value(c.createJob('first'));
    sim().injectFault({ kind: 'job', omit: ['id'], count: 2, match: { operation: 'get' } });
    expect(await value(c.getJob(created.id))).toMatchObject({ id: created.id, status: 'active' });
    sim().injectFault({ kind: 'job', omit: ['id'], count: 1, match: { operation: 'follow-up' } });
    expect(await value(c.sendFollowUp(created.id, 'more'))).toMatchObject({ id: created.id, status: 'active' });
  });

  it('a 201 without `id` names no job to follow: unavailable, and it may have started', async () => {
    sim().injectFault({ kind: 'job', omit: ['id'], count: 1, match: { operation: 'create' } });
    const error = await failure(client().createJob('first'), 'unavailable');
    expect(error).toMatchObject({ reason: 'response does not match the API contract', ambiguous: true });
  });

  it('answers a 404 as not_found with the service message, without retrying', async () => {
    const error = await failure(client().getJob('nope'), 'not_found');
    expect(error.line).toBe('get job (project proj_1): Job not found');
    expect(error.code).toBe('not_found');
    expect(sim().requests).toHaveLength(1);
  });

  it.each([
    ['a slash', 'a/b'],
    ['a dot-dot segment', '..'],
    ['dot-dots inside', 'a..b'],
    ['a percent sign', 'a%2Fb'],
    ['an empty id', ''],
    ['a space', 'a b'],
    ['a leading dot', '.hidden'],
    ['a query string', 'a?x=1'],
    ['a fragment', 'a#b'],
    ['an id past 1,000 characters', 'a'.repeat(1_001)],
  ])('refuses a job id with %s before sending anything: a proxy could read it as another path', async (_case, id) => {
    const c = client();
    await failure(c.getJob(id), 'refused');
    await failure(c.sendFollowUp(id, 'x'), 'refused');
    expect(sim().requests).toHaveLength(0);
  });

  it.each([
    ['a tilde and a plus', 'job~1+2', 'job~1%2B2'],
    ['an equals sign, a colon and an at sign', 'job=1:2@x', 'job%3D1%3A2%40x'],
    ['129 characters', 'a'.repeat(129), 'a'.repeat(129)],
  ])('asks for a job id with %s (the document allows any string) as one path segment', async (_case, id, segment) => {
    const stub = await startStub(() => json(200, { id, status: 'active' }));
    const c = client({ apiUrl: stub.url });
    expect(await value(c.getJob(id))).toMatchObject({ id, status: 'active' });
    expect(await value(c.sendFollowUp(id, 'x'))).toMatchObject({ id });
    expect(stub.requests.map((r) => r.url)).toEqual([`${JOB_PATH}/${segment}`, `${JOB_PATH}/${segment}/message`]);
  });

  it('a created job whose id the bot would not send is a contract violation, not a job to track', async () => {
    const stub = await startStub(() => json(201, { id: 'a/b', status: 'active' }));
    const error = await failure(client({ apiUrl: stub.url }).createJob('first'), 'unavailable');
    expect(error).toMatchObject({ reason: 'response does not match the API contract', ambiguous: true });
  });

  it('URL-encodes path parameters (project id and job id)', async () => {
    const c = client({ projectId: 'team a/b' });
    const job = await value(c.createJob('first'));
    expect(sim().requests.at(-1)?.path).toBe('/v2/agent/team%20a%2Fb/job');
    await failure(c.getJob('job:1'), 'not_found');
    expect(sim().requests.at(-1)?.path).toBe('/v2/agent/team%20a%2Fb/job/job%3A1');
    expect(await value(c.getJob(job.id))).toMatchObject({ id: job.id });
  });

  it('retries a 5xx on GET and then succeeds', async () => {
    const c = client();
    const job = await value(c.createJob('first'));
    sim().injectFault({ kind: 'status', status: 503, count: 2, match: { method: 'GET' } });
    expect(await value(c.getJob(job.id))).toMatchObject({ id: job.id });
    expect(sim().requests.filter((r) => r.method === 'GET')).toHaveLength(3);
  });

  it('tells onResponse of every answer, the retried ones included', async () => {
    const answers: string[] = [];
    const c = client({ timeoutMs: 300, onResponse: (operation, status) => answers.push(`${operation} ${status}`) });
    const job = await value(c.createJob('first'));
    sim().injectFault({ kind: 'status', status: 503, count: 1, match: { method: 'GET' } });
    sim().injectFault({ kind: 'slow', delayMs: 2_000, count: 1, match: { method: 'GET' } });
    await value(c.getJob(job.id));
    expect(answers).toEqual(['create_job 201', 'get_job 503', 'get_job timeout', 'get_job 200']);
    await failure(c.getJob('job-unknown'), 'not_found');
    expect(answers.at(-1)).toBe('get_job 404');
  });

  it.each([500, 502, 503] as const)(
    'gives up on a persistent %i as unavailable carrying the status',
    async (status) => {
      sim().injectFault({ kind: 'status', status, count: Number.POSITIVE_INFINITY });
      const error = await failure(client({ getRetries: 1 }).getJob('job-1'), 'unavailable');
      expect(error.status).toBe(status);
      expect(error.line).toBe(`get job (project proj_1): ${status} Simulated ${status} error`);
      expect(sim().requests).toHaveLength(2);
    },
  );

  it('retries a connection reset on GET', async () => {
    const c = client();
    const job = await value(c.createJob('first'));
    sim().injectFault({ kind: 'reset', count: 1, match: { method: 'GET' } });
    expect(await value(c.getJob(job.id))).toMatchObject({ id: job.id });
    expect(sim().requests.filter((r) => r.method === 'GET')).toHaveLength(2);
  });

  it('times out a slow answer as unavailable "timed out"', async () => {
    sim().injectFault({ kind: 'slow', delayMs: 2_000, count: Number.POSITIVE_INFINITY });
    const error = await failure(client({ timeoutMs: 100, getRetries: 0 }).getJob('job-1'), 'unavailable');
    expect(error.line).toBe('get job (project proj_1): timed out');
    expect(error.status).toBeUndefined();
  });

  it('retries a timed-out GET', async () => {
    const c = client({ timeoutMs: 300 });
    const job = await value(c.createJob('first'));
    sim().injectFault({ kind: 'slow', delayMs: 2_000, count: 1, match: { method: 'GET' } });
    expect(await value(c.getJob(job.id))).toMatchObject({ id: job.id });
  });

  it('maps an unreachable server as unavailable "network error"', async () => {
    const url = sim().url;
    await sim().close();
    const error = await failure(client({ apiUrl: url, getRetries: 0 }).getJob('job-1'), 'unavailable');
    expect(error.line).toMatch(/^get job \(project proj_1\): network error/);
  });
});

describe('no POST is ever retried', () => {
  const posts: [string, (c: ReturnType<typeof client>, jobId: string) => Promise<ServiceResult<unknown>>][] = [
    ['createJob', (c) => c.createJob('do it')],
    ['sendFollowUp', (c, jobId) => c.sendFollowUp(jobId, 'and this')],
  ];

  it.each(posts)('%s: a 503 is seen exactly once and reported with its status', async (_name, post) => {
    const job = await value(client().createJob('first'));
    sim().requests.length = 0;
    sim().injectFault({ kind: 'status', status: 503, count: Number.POSITIVE_INFINITY, match: { method: 'POST' } });
    const error = await failure(post(client(), job.id), 'unavailable');
    expect(error.status).toBe(503);
    expect(sim().requests).toHaveLength(1);
  });

  it.each(posts)('%s: a connection reset is seen exactly once', async (_name, post) => {
    const job = await value(client().createJob('first'));
    sim().requests.length = 0;
    sim().injectFault({ kind: 'reset', count: Number.POSITIVE_INFINITY, match: { method: 'POST' } });
    const error = await failure(post(client(), job.id), 'unavailable');
    expect(error.line).toMatch(/network error/);
    expect(sim().requests).toHaveLength(1);
  });

  it.each(posts)('%s: a timeout is seen exactly once', async (_name, post) => {
    const job = await value(client().createJob('first'));
    sim().requests.length = 0;
    sim().injectFault({ kind: 'slow', delayMs: 2_000, count: Number.POSITIVE_INFINITY, match: { method: 'POST' } });
    const error = await failure(post(client({ timeoutMs: 100 }), job.id), 'unavailable');
    expect(error.line).toMatch(/timed out$/);
    expect(sim().requests).toHaveLength(1);
  });

  it.each(posts)('%s: a 429 is seen exactly once', async (_name, post) => {
    const job = await value(client().createJob('first'));
    sim().requests.length = 0;
    sim().injectFault({ kind: 'rate-limit', retryAfterSec: 1, count: Number.POSITIVE_INFINITY });
    await failure(post(client(), job.id), 'rate_limited');
    expect(sim().requests).toHaveLength(1);
  });
});

describe('getVisitors', () => {
  it('sends the query and parses the response', async () => {
    const result = await value(client().getVisitors({ ...QUERY, limit: 5, offset: 10 }));
    expect(result.visitors.length).toBeLessThanOrEqual(5);
    expect(result.totals).toEqual({ human: expect.any(Number), ai: expect.any(Number), total: expect.any(Number) });
    expect(sim().requests).toEqual([
      {
        method: 'GET',
        path: VISITORS_PATH,
        query: { dateFrom: '2025-05-01', dateTo: '2025-05-08', limit: '5', offset: '10' },
        body: undefined,
        keyFingerprint: keyFingerprint(API_KEY),
      },
    ]);
  });

  it('applies the default limit and offset', async () => {
    await value(client().getVisitors(QUERY));
    expect(sim().requests[0]?.query).toMatchObject({ limit: '50', offset: '0' });
  });

  it.each<[string, Partial<VisitorsQuery>]>([
    ['limit 0', { limit: 0 }],
    ['limit 251', { limit: 251 }],
    ['fractional limit', { limit: 1.5 }],
    ['offset -1', { offset: -1 }],
    ['a slash date', { dateFrom: '2025/05/01' }],
    ['an impossible date', { dateFrom: '2025-02-30' }],
    ['a short date', { dateTo: '2025-5-8' }],
    ['a date-time without an offset', { dateTo: '2025-05-08T00:00:00' }],
    ['dateFrom equal to dateTo', { dateFrom: '2025-05-08', dateTo: '2025-05-08' }],
    ['dateFrom after dateTo', { dateFrom: '2025-05-09', dateTo: '2025-05-08' }],
  ])('refuses %s without sending anything', async (_case, change) => {
    const error = await failure(client().getVisitors({ ...QUERY, ...change }), 'refused');
    expect(error.message).toBe('invalid input');
    expect(error.details.length).toBeGreaterThan(0);
    expect(sim().requests).toHaveLength(0);
  });

  it('maps an analytics 400 as refused with its details', async () => {
    const stub = await startStub(() =>
      json(400, { error: 'Invalid query parameters', details: [{ message: 'dateFrom: too old' }, { message: 'x' }] }),
    );
    const error = await failure(client({ apiUrl: stub.url }).getVisitors(QUERY), 'refused');
    expect(error.message).toBe('Invalid query parameters');
    expect(error.details).toEqual(['dateFrom: too old', 'x']);
    expect(error.line).toBe('get visitors (project proj_1): Invalid query parameters; dateFrom: too old; x');
  });
});

describe('answers the simulator never gives (local stub server)', () => {
  it.each([401, 403])('maps %i as unauthorized without retrying', async (status) => {
    const stub = await startStub(() => json(status, { error: 'Invalid API key' }));
    const error = await failure(client({ apiUrl: stub.url }).getJob('job-1'), 'unauthorized');
    expect(error.line).toBe(`get job (project proj_1): ${status} Invalid API key`);
    expect(error.code).toBe('unauthorized');
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it.each([413, 409, 402, 400])('answers a %i as refused: nothing was done', async (status) => {
    const stub = await startStub(() => json(status, { error: 'Prompt is too large' }));
    const error = await failure(client({ apiUrl: stub.url }).createJob('x'), 'refused');
    expect(error).toMatchObject({ status, message: 'Prompt is too large' });
  });

  it('answers a 408 as unavailable (maybe done) and retries it on GET', async () => {
    const stub = await startStub(() => json(408, { error: 'Request Timeout' }));
    const error = await failure(client({ apiUrl: stub.url, getRetries: 1 }).getJob('job-1'), 'unavailable');
    expect(error.ambiguous).toBe(true);
    expect(stub.requests).toHaveLength(2);
  });

  it('maps a 422 as refused', async () => {
    const stub = await startStub(() => json(422, { error: 'Unprocessable' }));
    const error = await failure(client({ apiUrl: stub.url }).createJob('x'), 'refused');
    expect(error.message).toBe('Unprocessable');
  });

  it('redacts a key the service echoes back in its error message and details', async () => {
    const stub = await startStub(() =>
      json(400, { error: `bad key ${API_KEY}`, details: [{ message: `header was Bearer ${API_KEY}` }] }),
    );
    const error = await failure(client({ apiUrl: stub.url }).getVisitors(QUERY), 'refused');
    expect(error.message).toBe('bad key mint_[redacted]');
    expect(error.details).toEqual(['header was Bearer mint_[redacted]']);
  });

  it('redacts a key echoed in a 401 message', async () => {
    const stub = await startStub(() => json(401, { error: `unknown key ${API_KEY}` }));
    const error = await failure(client({ apiUrl: stub.url }).createJob('x'), 'unauthorized');
    expect(error.line).toBe('create job (project proj_1): 401 unknown key mint_[redacted]');
  });

  it.each<[string, StubReply, RegExp]>([
    ['a 500 with an HTML body', { status: 500, body: '<html>oops</html>' }, /^get job \(project proj_1\): 500$/],
    ['a 429 without Retry-After', json(429, { error: 'slow down' }), /rate limited, retry in 60s/],
    ['a 429 with a garbage Retry-After', json(429, {}, { 'retry-after': 'soon' }), /retry in 60s/],
    ['a 429 with an HTTP-date Retry-After', json(429, {}, { 'retry-after': 'Thu, 01 Jan 1970 00:00:00 GMT' }), /in 0s/],
    ['a 404 without a body', { status: 404 }, /^get job \(project proj_1\): not found$/],
  ])('copes with %s', async (_case, reply, expected) => {
    const stub = await startStub(() => reply);
    const result = await client({ apiUrl: stub.url, getRetries: 0 }).getJob('job-1');
    expect(result.ok).toBe(false);
    expect(!result.ok && describeFailure(result)).toMatch(expected);
  });

  it.each<[string, string, string]>([
    ['a job without a status (the documents require no field): still active', JSON.stringify({ id: 'j1' }), 'active'],
    ['a job with a null status: still active', JSON.stringify({ id: 'j1', status: null }), 'active'],
    ['a status the documents do not list, kept as it came', JSON.stringify({ id: 'j1', status: 'paused' }), 'paused'],
  ])('reads %s', async (_case, body, status) => {
    const stub = await startStub(() => ({ status: 200, body }));
    expect(await value(client({ apiUrl: stub.url }).getJob('job-1'))).toMatchObject({ id: 'j1', status });
  });

  it.each<[string, string]>([
    ['an empty body', ''],
    ['a JSON array', '[]'],
  ])('reports %s as a contract violation', async (_case, body) => {
    const stub = await startStub(() => ({ status: 200, body }));
    const error = await failure(client({ apiUrl: stub.url }).getJob('job-1'), 'unavailable');
    expect(error.line).toBe('get job (project proj_1): response does not match the API contract');
  });

  it('reports a 200 that is not JSON as a bad response, not a network error', async () => {
    const stub = await startStub(() => ({
      status: 200,
      body: '<html>login</html>',
      headers: { 'content-type': 'text/html' },
    }));
    const error = await failure(client({ apiUrl: stub.url }).getJob('job-1'), 'unavailable');
    expect(error.line).toBe('get job (project proj_1): response is not JSON');
  });
});

describe('the API key stays secret', () => {
  it('never appears in debug logs of successful and failed requests', async () => {
    const captured = captureLogs();
    const c = client({ log: captured.log });
    const job = await value(c.createJob('first'));
    await c.getJob(job.id);
    await c.getJob('missing');
    await c.getVisitors(QUERY);
    expect(captured.lines.length).toBeGreaterThanOrEqual(4);
    expect(captured.text()).toContain('mintlify.request');
    expect(captured.text()).not.toContain(API_KEY);
  });
});

describe('several projects', () => {
  const KEYS: Record<string, string> = { proj_a: 'mint_key_for_a_123', proj_b: 'mint_key_for_b_456' };

  it('sends each project’s own key, and only to that project’s paths', async () => {
    const stub = await startStub(() => json(200, { id: 'job-1', status: 'active' }));
    const c = createMintlifyClient({ apiUrl: stub.url, keyFor: (p) => KEYS[p] ?? API_KEY, log: captureLogs().log });
    await c.getJob('proj_a', 'job-1');
    await c.getJob('proj_b', 'job-1');
    await c.getVisitors('proj_b', QUERY);
    expect(stub.requests.map((r) => [r.url.split('?')[0], r.headers.authorization])).toEqual([
      ['/v2/agent/proj_a/job/job-1', `Bearer ${KEYS.proj_a}`],
      ['/v2/agent/proj_b/job/job-1', `Bearer ${KEYS.proj_b}`],
      ['/v1/analytics/proj_b/visitors', `Bearer ${KEYS.proj_b}`],
    ]);
  });

  it('names the project, never the key, when the key is refused', async () => {
    const stub = await startStub(() => json(401, { error: 'Invalid API key' }));
    const c = createMintlifyClient({ apiUrl: stub.url, keyFor: (p) => KEYS[p] ?? API_KEY, log: captureLogs().log });
    const result = await c.createJob('proj_b', 'x');
    expect(result).toMatchObject({ ok: false, project: 'proj_b', failure: { code: 'unauthorized' } });
    expect(!result.ok && describeFailure(result)).toContain('proj_b');
    expect(JSON.stringify(result)).not.toContain('mint_key');
  });
});

describe('whether a failed call may have done its work', () => {
  it('is unknown after a timeout or a 5xx: the service may have created the job', async () => {
    sim().injectFault({ kind: 'slow', delayMs: 1_000, count: 1, match: { method: 'POST' } });
    expect((await failure(client({ timeoutMs: 100 }).createJob('x'), 'unavailable')).ambiguous).toBe(true);
    sim().injectFault({ kind: 'status', status: 503, count: 1, match: { method: 'POST' } });
    expect((await failure(client().createJob('x'), 'unavailable')).ambiguous).toBe(true);
  });

  it('is known not to have happened when the connection was refused', async () => {
    const url = sim().url;
    await sim().close();
    expect((await failure(client({ apiUrl: url }).createJob('x'), 'unavailable')).ambiguous).toBe(false);
  });
});
