import { describe, expect, it } from 'vitest';
import { createMintlifyClient } from '../../../../src/mintlify/client.js';
import { checkWithService, validate } from '../../../../src/tenants/connect/check.js';
import { useSimulator } from '../../../fakes/start-simulator.js';
import { captureLogs } from '../../../support/logs.js';

const KEY = 'mint_acme_0123456789abcd';

describe('the connect form, before the service is asked', () => {
  it.each<[string, Parameters<typeof validate>[0], string | undefined, Record<string, RegExp>]>([
    ['no key on a first connection', { project: 'proj_a' }, undefined, { api_key: /Enter an admin API key/ }],
    [
      'a key that is not an admin key',
      { api_key: 'sk_live_1', project: 'proj_a' },
      undefined,
      { api_key: /starts with mint_/ },
    ],
    ['no project', { api_key: KEY }, undefined, { project: /letters, digits/ }],
    ['a project with a slash', { api_key: KEY, project: 'a/b' }, undefined, { project: /letters, digits/ }],
    [
      'a channel name as a route',
      { api_key: KEY, project: 'p', routes: '#docs:proj_b' },
      undefined,
      { routes: /^Line 1/ },
    ],
    [
      'a route twice',
      { api_key: KEY, project: 'p', routes: 'C0AAA:x\nC0AAA:y' },
      undefined,
      { routes: /^Line 2: C0AAA/ },
    ],
    [
      'a docs site that is not https',
      { api_key: KEY, project: 'p', docs_url: 'http://docs.acme.example' },
      undefined,
      { docs_url: /“http:\/\/docs\.acme\.example” is not the https address/ },
    ],
    [
      'a docs site that is no address',
      { api_key: KEY, project: 'p', docs_url: 'docs' },
      undefined,
      { docs_url: /“docs”/ },
    ],
    [
      'a docs site carrying a password, without echoing it',
      { api_key: KEY, project: 'p', docs_url: 'https://:hunter2secret@docs.acme.example' },
      undefined,
      { docs_url: /^(?!.*hunter2secret).*user name and password/ },
    ],
  ])('refuses %s on its field', (_, form, current, errors) => {
    const checked = validate(form, current);
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(Object.keys(checked.errors)).toEqual(Object.keys(errors));
      for (const [field, pattern] of Object.entries(errors))
        expect(checked.errors[field as 'api_key']).toMatch(pattern);
    }
  });

  it('keeps the current key when the field is left empty, and reads one route per line', () => {
    expect(validate({ project: 'proj_a', routes: 'C0AAA:proj_b\n C0BBB : proj_c ' }, KEY)).toEqual({
      ok: true,
      value: { apiKey: KEY, projectId: 'proj_a', channelProjects: { C0AAA: 'proj_b', C0BBB: 'proj_c' } },
    });
  });

  it('keeps a docs site given as an https address, under a path too', () => {
    const docsUrl = 'https://acme.example/docs';
    expect(validate({ api_key: KEY, project: 'proj_a', docs_url: docsUrl }, undefined)).toEqual({
      ok: true,
      value: { apiKey: KEY, projectId: 'proj_a', channelProjects: {}, docsUrl },
    });
  });

  // The log redaction hides `mint_` and what follows only up to a character a Bearer token cannot hold: a key with
  // one of those would leak its tail at LOG_LEVEL=debug (the SDK logs payloads), so the form refuses it.
  it.each(['mint_abc"def', 'mint_abc\\def', 'mint_abc,def', 'mint_abc:def', 'mint_abc=def', 'mint_é', 'mint_'])(
    'refuses %j: a key only of the characters a Bearer token may hold',
    (apiKey) => {
      expect(validate({ api_key: apiKey, project: 'proj_a' }, undefined)).toEqual({
        ok: false,
        errors: { api_key: expect.stringMatching(/starts with mint_ and has only letters, digits/) },
      });
    },
  );

  it.each(['mint_live.abc', 'mint_a~b+c/d-e_f', 'mint_YWJjZA==', KEY])('accepts %j', (apiKey) => {
    expect(validate({ api_key: apiKey, project: 'proj_a' }, undefined)).toMatchObject({ ok: true });
  });

  it('never names the key in a refusal', () => {
    const checked = validate({ api_key: 'mint_has spaces', project: 'proj_a' }, undefined);
    expect(JSON.stringify(checked)).not.toContain('has spaces');
  });
});

describe.each([403, 404] as const)('the connect form against the service (unserved project: %i)', (status) => {
  const sim = useSimulator({ keys: { keys: { [KEY]: ['proj_a', 'proj_c'] }, unservedProjectStatus: status } });
  const client = (key: string) =>
    createMintlifyClient({ apiUrl: sim().url, keyFor: () => key, log: captureLogs().log, getRetries: 0 });
  const candidate = (over = {}) => ({ apiKey: KEY, projectId: 'proj_a', channelProjects: {}, ...over });
  const now = Date.parse('2026-11-23T12:00:00Z');

  it('accepts a key that serves the project and each routed one, with one read each and no job', async () => {
    const checked = await checkWithService(client(KEY), candidate({ channelProjects: { C0AAA: 'proj_c' } }), now);
    expect(checked.ok).toBe(true);
    expect(
      sim()
        .requests.map((r) => `${r.path}?${new URLSearchParams(r.query)}`)
        .sort(),
    ).toEqual([
      '/v1/analytics/proj_a/visitors?dateFrom=2026-11-23&dateTo=2026-11-24&limit=1&offset=0',
      '/v1/analytics/proj_c/visitors?dateFrom=2026-11-23&dateTo=2026-11-24&limit=1&offset=0',
    ]);
  });

  it('puts a refused key on the key field, an unknown project on the project field, a routed one on routes', async () => {
    expect(await checkWithService(client('mint_other_key'), candidate(), now)).toEqual({
      ok: false,
      errors: { api_key: expect.stringContaining('refused this key') },
    });
    expect(await checkWithService(client(KEY), candidate({ projectId: 'proj_x' }), now)).toEqual({
      ok: false,
      errors: { project: 'This key has no project proj_x: check the id in the dashboard.' },
    });
    expect(await checkWithService(client(KEY), candidate({ channelProjects: { C0AAA: 'proj_y' } }), now)).toEqual({
      ok: false,
      errors: { routes: 'This key has no project proj_y: check the id in the dashboard.' },
    });
  });

  it('says the service is down, on the key field, when it does not answer', async () => {
    sim().injectFault({ kind: 'status', status: 503, count: 1 });
    expect(await checkWithService(client(KEY), candidate(), now)).toEqual({
      ok: false,
      errors: { api_key: 'Mintlify did not answer, so nothing was saved. Try again in a minute.' },
    });
  });
});
