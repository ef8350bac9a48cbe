import { describe, expect, it } from 'vitest';
import { recordServedProjects } from '../../src/config/served-projects.js';
import { RECORD_TTL_MS } from '../../src/store/jobs.js';
import { createStore } from '../../src/store/store.js';
import { captureLogs } from '../support/logs.js';

const DAY = 24 * 60 * 60 * 1000;

describe('recordServedProjects', () => {
  it('returns the projects served at an earlier start and not now, until their jobs’ records are gone', async () => {
    const store = await createStore({ log: captureLogs().log });
    expect(await recordServedProjects(store, ['proj_a', 'proj_b', 'proj_c'], 0)).toEqual([]);
    // proj_b taken out of the configuration, proj_c too but added back later.
    expect(await recordServedProjects(store, ['proj_a'], DAY)).toEqual(['proj_b', 'proj_c']);
    expect(await recordServedProjects(store, ['proj_a', 'proj_c'], 2 * DAY)).toEqual(['proj_b']);
    // Still former a start later: it is remembered as last served at the first start, not at each one.
    expect(await recordServedProjects(store, ['proj_a'], 3 * DAY)).toEqual(['proj_b', 'proj_c']);
    expect(await recordServedProjects(store, ['proj_a'], RECORD_TTL_MS + 1)).toEqual(['proj_c']);
    await store.close();
  });
});
