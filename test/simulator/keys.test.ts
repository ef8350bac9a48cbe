import { describe, expect, it } from 'vitest';
import { useSimulator } from '../fakes/start-simulator.js';
import { call, expectDocumented } from './http.js';

const as = (key: string) => ({ Authorization: `Bearer ${key}` });
const visitors = (project: string) => `/v1/analytics/${project}/visitors?limit=1`;
const jobs = (project: string) => `/v2/agent/${project}/job`;

describe('keys per project, given at start', () => {
  const sim = useSimulator({ keys: { keys: { mint_a: ['proj_a'], mint_b: ['proj_b', 'proj_c'] } } });

  it('serves each key its own projects, on every operation', async () => {
    const created = await call(sim().url, 'POST', jobs('proj_a'), { prompt: 'x' }, as('mint_a'));
    expect(created.status).toBe(201);
    const { id } = created.json as { id: string };
    expect((await call(sim().url, 'GET', `${jobs('proj_a')}/${id}`, undefined, as('mint_a'))).status).toBe(200);
    const followUp = await call(sim().url, 'POST', `${jobs('proj_a')}/${id}/message`, { prompt: 'y' }, as('mint_a'));
    expect(followUp.status).toBe(200);
    for (const project of ['proj_b', 'proj_c']) {
      expect((await call(sim().url, 'GET', visitors(project), undefined, as('mint_b'))).status).toBe(200);
    }
  });

  it('refuses a key it does not know with 401, whatever the project', async () => {
    for (const key of ['mint_unknown', 'mint_a_typo', 'sk_live_a']) {
      const answer = await call(sim().url, 'GET', visitors('proj_a'), undefined, as(key));
      expect(answer).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    }
  });

  it('answers a known key used for a project it does not serve with 403, the documented error body', async () => {
    const answer = await call(sim().url, 'POST', jobs('proj_b'), { prompt: 'x' }, as('mint_a'));
    expect(answer).toMatchObject({ status: 403, json: { error: expect.stringMatching(/access/) } });
    expectDocumented('create', answer);
    expect(sim().counts().creates).toBe(0);
  });
});

describe('keys per project, set and cleared over HTTP', () => {
  const sim = useSimulator();

  it('switches from any mint_ key to the configured keys and back', async () => {
    expect((await call(sim().url, 'GET', visitors('proj_b'), undefined, as('mint_anything'))).status).toBe(200);
    const set = await call(
      sim().url,
      'PUT',
      '/__sim/keys',
      { keys: { mint_a: ['proj_a'] }, unservedProjectStatus: 404 },
      {},
    );
    expect(set.status).toBe(200);
    expect((await call(sim().url, 'GET', visitors('proj_b'), undefined, as('mint_anything'))).status).toBe(401);
    const unserved = await call(sim().url, 'GET', visitors('proj_b'), undefined, as('mint_a'));
    expect(unserved).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    expect((await call(sim().url, 'GET', visitors('proj_a'), undefined, as('mint_a'))).status).toBe(200);

    expect((await call(sim().url, 'DELETE', '/__sim/keys', undefined, {})).status).toBe(204);
    expect((await call(sim().url, 'GET', visitors('proj_b'), undefined, as('mint_anything'))).status).toBe(200);
  });

  it.each([
    {},
    { keys: { mint_a: 'proj_a' } },
    { keys: { 'mint a': ['proj_a'] } },
    { keys: {}, unservedProjectStatus: 500 },
    { keys: {}, extra: true },
  ])('refuses a key configuration it cannot use: %j', async (body) => {
    const answer = await call(sim().url, 'PUT', '/__sim/keys', body, {});
    expect(answer).toMatchObject({ status: 400, json: { error: expect.stringMatching(/\S/) } });
  });
});

describe('projects that accept only their own key (projectKeys), with no key configuration', () => {
  const sim = useSimulator({ projectKeys: { proj_own: 'mint_own' } });

  it('keeps any mint_ key for the other projects', async () => {
    expect((await call(sim().url, 'GET', visitors('proj_own'), undefined, as('mint_own'))).status).toBe(200);
    expect((await call(sim().url, 'GET', visitors('proj_own'), undefined, as('mint_other'))).status).toBe(401);
    expect((await call(sim().url, 'GET', visitors('proj_x'), undefined, as('mint_other'))).status).toBe(200);
  });
});
