import { describe, expect, it } from 'vitest';
import { AdminErrorSchema, AgentJobSchema } from '../../tools/simulator/contract.js';
import { keyFingerprint, type ScriptedEnd, type Simulator } from '../../tools/simulator/server.js';
import { useClockedSimulator } from '../fakes/start-simulator.js';
import { AUTH, call, documentedJob, JOBS_PATH, VISITORS_PATH } from './http.js';

const DURATION = 3000;

async function createJob(sim: () => Simulator, prompt: string) {
  const { status, json } = await call(sim().url, 'POST', JOBS_PATH, { prompt });
  expect(status).toBe(201);
  return documentedJob(json);
}

async function getJob(sim: () => Simulator, id: string) {
  const { status, json } = await call(sim().url, 'GET', `${JOBS_PATH}/${id}`);
  expect(status).toBe(200);
  return documentedJob(json);
}

describe('auth and routing', () => {
  const { sim } = useClockedSimulator({ jobDurationMs: DURATION });

  it('answers 401 without a bearer or with a wrong one', async () => {
    const wrongHeaders: Record<string, string>[] = [
      {},
      { Authorization: 'Bearer sk_live_1' },
      { Authorization: 'mint_abc' },
    ];
    for (const headers of wrongHeaders) {
      const { status, json } = await call(sim().url, 'POST', JOBS_PATH, { prompt: 'hi' }, headers);
      expect(status).toBe(401);
      expect(json).toEqual({ error: 'Unauthorized' });
    }
    const visitors = await call(sim().url, 'GET', VISITORS_PATH, undefined, {});
    expect(visitors.status).toBe(401);
  });

  it('answers 404 on unknown routes and 405 on wrong methods', async () => {
    expect((await call(sim().url, 'GET', '/v2/nope')).json).toEqual({ error: 'Not found' });
    const wrong = await call(sim().url, 'DELETE', `${JOBS_PATH}/x`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
  });

  it('records requests with a fingerprint of the key, never the key, and decodes path params', async () => {
    const job = await createJob(sim, 'hello');
    const project = await call(sim().url, 'GET', `/v2/agent/${encodeURIComponent('proj 1')}/job/${job.id}`);
    expect(project.status).toBe(404); // the job belongs to proj_1, not "proj 1"
    expect(sim().requests[0]).toEqual({
      method: 'POST',
      path: JOBS_PATH,
      query: {},
      body: { prompt: 'hello' },
      keyFingerprint: keyFingerprint('mint_test_key'),
    });
    expect(JSON.stringify(sim().requests)).not.toContain('mint_test_key');
  });
});

describe('jobs', () => {
  const { sim, clock } = useClockedSimulator({ jobDurationMs: DURATION });

  it('creates an active job with the documented shape', async () => {
    const job = await createJob(sim, 'Document the webhooks');
    expect(job).toMatchObject({
      status: 'active',
      source: { repository: 'https://github.com/acme/docs', ref: `mintlify/agent-${job.id.slice(0, 8)}` },
      model: 'claude-sonnet-4',
      prLink: null,
      createdAt: new Date(clock.now()).toISOString(),
      archivedAt: null,
    });
    expect(sim().counts()).toMatchObject({ creates: 1 });
  });

  it('rejects a missing, malformed or empty prompt with 400', async () => {
    for (const body of [undefined, '{nope', { prompt: '' }, { prompt: '   ' }, { prompt: 3 }]) {
      const { status, json } = await call(sim().url, 'POST', JOBS_PATH, body);
      expect(status).toBe(400);
      expect(AdminErrorSchema.parse(json).error).toMatch(/\S/);
    }
    expect(sim().counts().creates).toBe(0);
  });

  it('answers 404 for an unknown or deleted job', async () => {
    const missing = await call(sim().url, 'GET', `${JOBS_PATH}/does-not-exist`);
    expect(missing).toMatchObject({ status: 404, json: { error: 'Job not found' } });
    const job = await createJob(sim, 'hi');
    expect(sim().deleteJob(job.id)).toBe(true);
    expect((await call(sim().url, 'GET', `${JOBS_PATH}/${job.id}`)).status).toBe(404);
  });

  it('completes with a PR after the duration', async () => {
    const job = await createJob(sim, 'Add a quickstart');
    clock.advance(DURATION - 1);
    expect((await getJob(sim, job.id)).status).toBe('active');
    clock.advance(1);
    const done = await getJob(sim, job.id);
    expect(done.status).toBe('completed');
    expect(done.prLink).toMatch(/^https:\/\/github\.com\/acme\/docs\/pull\/\d+$/);
  });

  it.each([
    ['Please FAIL this', 'failed', null],
    ['there are no changes needed', 'completed', null],
    ['Archive it', 'archived', null],
  ])('scripts the outcome of %j', async (prompt, status, prLink) => {
    const job = await createJob(sim, prompt);
    clock.advance(DURATION);
    const done = await getJob(sim, job.id);
    expect(done).toMatchObject({ status, prLink });
    expect(done.archivedAt).toBe(status === 'archived' ? new Date(clock.now()).toISOString() : null);
  });

  it('makes a job active again on follow-up (prLink null while active, as documented) and updates its PR', async () => {
    const job = await createJob(sim, 'Add a quickstart');
    clock.advance(DURATION);
    const { prLink } = await getJob(sim, job.id);
    const followUp = await call(sim().url, 'POST', `${JOBS_PATH}/${job.id}/message`, { prompt: 'Also fix typos' });
    expect(followUp.status).toBe(200);
    expect(AgentJobSchema.parse(followUp.json)).toMatchObject({ id: job.id, status: 'active', prLink: null });
    clock.advance(DURATION);
    expect(await getJob(sim, job.id)).toMatchObject({ status: 'completed', prLink });
    expect(sim().counts()).toMatchObject({ creates: 1, followUps: 1 });
  });

  it('a follow-up that changes no files ends with prLink null ("if no files were changed"); the next updates the PR', async () => {
    const job = await createJob(sim, 'Add a quickstart');
    clock.advance(DURATION);
    const { prLink } = await getJob(sim, job.id);
    await call(sim().url, 'POST', `${JOBS_PATH}/${job.id}/message`, { prompt: 'no changes needed, just check' });
    clock.advance(DURATION);
    expect(await getJob(sim, job.id)).toMatchObject({ status: 'completed', prLink: null });
    await call(sim().url, 'POST', `${JOBS_PATH}/${job.id}/message`, { prompt: 'Now fix the typos' });
    clock.advance(DURATION);
    expect(await getJob(sim, job.id)).toMatchObject({ status: 'completed', prLink });
  });

  it('gives a new PR to a successful follow-up on a job without one', async () => {
    const job = await createJob(sim, 'no changes please');
    clock.advance(DURATION);
    await call(sim().url, 'POST', `${JOBS_PATH}/${job.id}/message`, { prompt: 'ok, now edit' });
    clock.advance(DURATION);
    expect((await getJob(sim, job.id)).prLink).toMatch(/\/pull\/\d+$/);
  });

  it('rejects follow-ups on archived jobs, unknown jobs and empty prompts', async () => {
    const job = await createJob(sim, 'archive');
    clock.advance(DURATION);
    const archived = await call(sim().url, 'POST', `${JOBS_PATH}/${job.id}/message`, { prompt: 'more' });
    expect(archived.status).toBe(400);
    expect(AdminErrorSchema.parse(archived.json).error).toMatch(/archived/);
    const unknown = await call(sim().url, 'POST', `${JOBS_PATH}/nope/message`, { prompt: 'more' });
    expect(unknown).toMatchObject({ status: 404, json: { error: 'Job not found' } });
    const empty = await call(sim().url, 'POST', `${JOBS_PATH}/${job.id}/message`, { prompt: '' });
    expect(empty.status).toBe(400);
  });

  it('lets tests end a job now, by script or with a forced outcome', async () => {
    const first = await createJob(sim, 'fail please');
    expect(sim().endJob(first.id).status).toBe('failed');
    const second = await createJob(sim, 'write docs');
    expect(sim().endJob(second.id, { status: 'completed', prLink: 'https://example.test/pr/9' })).toMatchObject({
      status: 'completed',
      prLink: 'https://example.test/pr/9',
    });
    expect(await getJob(sim, second.id)).toMatchObject({ status: 'completed', prLink: 'https://example.test/pr/9' });
    expect(sim().getJob('missing')).toBeUndefined();
  });
});

describe('rate limits', () => {
  const { sim, clock } = useClockedSimulator({ jobDurationMs: DURATION });

  it('allows 100 creates per project per hour, then 429 with Retry-After', async () => {
    for (let i = 0; i < 100; i++) await createJob(sim, `job ${i}`);
    clock.advance(60_000);
    const limited = await call(sim().url, 'POST', JOBS_PATH, { prompt: 'one more' });
    expect(limited).toMatchObject({ status: 429, json: { error: 'Rate limit exceeded' } });
    expect(Number(limited.headers.get('retry-after'))).toBe(3540);
    // Other projects have their own window; the window frees after an hour.
    expect((await call(sim().url, 'POST', '/v2/agent/proj_2/job', { prompt: 'x' }, AUTH)).status).toBe(201);
    clock.advance(3_540_000);
    expect((await call(sim().url, 'POST', JOBS_PATH, { prompt: 'again' })).status).toBe(201);
  });
});

describe('with a duration computed from the prompt', () => {
  const { sim, clock } = useClockedSimulator({ jobDurationMs: (prompt) => prompt.length * 1000 });

  it('keeps the job active for that long', async () => {
    const { id } = await createJob(sim, 'abcde');
    clock.advance(4999);
    expect(sim().getJob(id)?.status).toBe('active');
    clock.advance(1);
    expect(sim().getJob(id)?.status).toBe('completed');
  });
});

describe('with small limits', () => {
  const { sim } = useClockedSimulator({
    jobDurationMs: DURATION,
    createLimitPerHour: 1,
    followUpLimitPerHour: 2,
  });

  it('counts follow-ups separately from creates', async () => {
    const { id } = await createJob(sim, 'x');
    expect((await call(sim().url, 'POST', JOBS_PATH, { prompt: 'y' })).status).toBe(429);
    const followUp = () => call(sim().url, 'POST', `${JOBS_PATH}/${id}/message`, { prompt: 'more' });
    expect((await followUp()).status).toBe(200);
    expect((await followUp()).status).toBe(200);
    const third = await followUp();
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(sim().counts()).toMatchObject({ creates: 1, followUps: 2 });
  });
});

describe('with a scripted ending (the playground knob)', () => {
  let ending: ScriptedEnd | undefined;
  const { sim, clock } = useClockedSimulator({ jobDurationMs: DURATION, scriptedEnd: () => ending });

  it.each([
    ['failed', 'failed', false],
    ['no_changes', 'completed', false],
    ['archived', 'archived', false],
    ['pull_request', 'completed', true],
  ] as const)('ends each new run as %s whatever the prompt says', async (scripted, status, hasPr) => {
    ending = scripted;
    const job = await createJob(sim, 'Please fail and archive with no changes');
    clock.advance(DURATION);
    const done = await getJob(sim, job.id);
    expect(done.status).toBe(status);
    expect(done.prLink !== null).toBe(hasPr);
  });

  it('leaves the ending to the prompt when unset', async () => {
    ending = undefined;
    const job = await createJob(sim, 'Please fail');
    clock.advance(DURATION);
    expect((await getJob(sim, job.id)).status).toBe('failed');
  });
});
