import { Keyv } from 'keyv';
import type { Deps } from '../../../src/deps.js';
import type { MintlifyClient } from '../../../src/mintlify/client.js';
import type { PageVisitors, VisitorsQuery, VisitorsResponse } from '../../../src/mintlify/schemas.js';
import { createProjects } from '../../../src/projects.js';
import { createMemoryClaims } from '../../../src/store/claims.js';
import { captureLogs } from '../../support/logs.js';

export const NOW = Date.parse('2026-11-22T23:05:00Z');
export const PROJECT = 'proj_test';

/** A visitors service in memory: `rowCount` pages ranked by total; `fail` replaces the next answers. */
export function fakeVisitorsService(rowCount: number) {
  const data: PageVisitors[] = Array.from({ length: rowCount }, (_, i) => ({
    path: i === 3 ? '=cmd|"/c calc",x' : `/p/${i}`,
    human: rowCount - i,
    ai: i % 3,
    total: rowCount - i + (i % 3 ? 1 : 0),
  }));
  const queries: VisitorsQuery[] = [];
  const projects: string[] = [];
  const failures: Error[] = [];
  const getVisitors = async (project: string, query: VisitorsQuery): Promise<VisitorsResponse> => {
    projects.push(project);
    queries.push(query);
    const failure = failures.shift();
    if (failure) throw failure;
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 50;
    const visitors = data.slice(offset, offset + limit);
    return { totals: { human: 900, ai: 90, total: 950 }, visitors, hasMore: offset + visitors.length < data.length };
  };
  return { data, queries, projects, failures, getVisitors };
}

export interface SlackCallLog {
  method: string;
  args: Record<string, unknown>;
}

/** Just the Web API methods the visitors feature uses, recorded; `failNext` makes one method throw like the SDK. */
export function fakeSlack() {
  const calls: SlackCallLog[] = [];
  const failures = new Map<string, string>();
  let seq = 0;
  const call = (method: string) => async (args: Record<string, unknown>) => {
    calls.push({ method, args });
    const error = failures.get(method);
    if (error) {
      failures.delete(method);
      throw Object.assign(new Error(`An API error occurred: ${error}`), {
        code: 'slack_webapi_platform_error',
        data: { ok: false, error },
      });
    }
    if (method === 'filesUploadV2') return { ok: true, files: [{ ok: true, files: [{ id: 'F1' }] }] };
    return { ok: true, ts: `1700000000.00${++seq}`, channel: args.channel };
  };
  const client = {
    chat: { postMessage: call('chat.postMessage'), update: call('chat.update') },
    filesUploadV2: call('filesUploadV2'),
  };
  return { client, calls, failNext: (method: string, error: string) => failures.set(method, error) };
}

export function fakeDeps(
  service: Pick<MintlifyClient, 'getVisitors'>,
  slack: ReturnType<typeof fakeSlack>['client'] = fakeSlack().client,
) {
  const logs = captureLogs();
  const mintlify = {
    projectId: PROJECT,
    apiKey: 'mint_x',
    apiUrl: 'http://127.0.0.1:1',
    channelProjects: {},
    projectKeys: {},
  };
  const deps = {
    config: { mintlify },
    projects: createProjects({ mintlify }),
    log: logs.log,
    mintlify: service,
    store: { kind: 'memory', kv: new Keyv(), claims: createMemoryClaims(), close: async () => {} },
    slack,
    instanceId: 'test-instance',
    afterAck: (task: () => Promise<unknown>) => task(),
    background: (task: () => Promise<unknown>) => task(),
    now: () => NOW,
  } as unknown as Deps;
  return { deps, logs };
}
