import type { webApi } from '@slack/bolt';
import { Keyv } from 'keyv';
import { lanesOf } from '../../../src/app/wiring.js';
import { createProjects } from '../../../src/config/projects.js';
import type { Deps } from '../../../src/deps.js';
import type { MintlifyClient } from '../../../src/mintlify/client.js';
import type { ServiceFailure, ServiceResult } from '../../../src/mintlify/failure.js';
import type { PageVisitors, VisitorsQuery, VisitorsResponse } from '../../../src/mintlify/schemas.js';
import { createMemoryEngine } from '../../../src/queue/memory.js';
import { createReplies } from '../../../src/slack/reply.js';
import { createMemoryClaims } from '../../../src/store/claims.js';
import type { ReportQuery } from '../../../src/visitors/date-range.js';
import type { DoorDeps } from '../../../src/visitors/doors/door-kit.js';
import type { ReportRequest } from '../../../src/visitors/requests.js';
import { SINGLE_WORKSPACE } from '../../../src/workspace-ref.js';
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
  const failures: ServiceFailure[] = [];
  const getVisitors = async (project: string, query: VisitorsQuery): Promise<ServiceResult<VisitorsResponse>> => {
    projects.push(project);
    queries.push(query);
    const failure = failures.shift();
    if (failure) return { ok: false, operation: 'get visitors', project, failure };
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 50;
    const visitors = data.slice(offset, offset + limit);
    const totals = { human: 900, ai: 90, total: 950 };
    return { ok: true, value: { totals, visitors, hasMore: offset + visitors.length < data.length } };
  };
  return { data, queries, projects, failures, getVisitors };
}

export interface SlackCallLog {
  method: string;
  args: Record<string, unknown>;
}

/**
 * Just the Web API methods the visitors feature uses, recorded; `failNext` makes one method throw like the SDK.
 * `history` is what `conversations.history` answers (the digest looks there after an ambiguous failure).
 */
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
    // A data: URL answers the upload's POST like Slack's upload URL does (200), without a server.
    if (method === 'files.getUploadURLExternal') return { ok: true, upload_url: 'data:,OK', file_id: 'F1' };
    if (method === 'conversations.open') return { ok: true, channel: { id: `D${String(args.users)}` } };
    if (method === 'conversations.history') return { ok: true, messages: history };
    return { ok: true, ts: `1700000000.00${++seq}`, channel: args.channel };
  };
  const history: { ts: string; metadata?: unknown }[] = [];
  const client = {
    chat: {
      postMessage: call('chat.postMessage'),
      postEphemeral: call('chat.postEphemeral'),
      update: call('chat.update'),
    },
    conversations: { open: call('conversations.open'), history: call('conversations.history') },
    filesUploadV2: call('filesUploadV2'),
    files: {
      getUploadURLExternal: call('files.getUploadURLExternal'),
      completeUploadExternal: call('files.completeUploadExternal'),
    },
  };
  const failNext = (method: string, error: string) => failures.set(method, error);
  return { client, calls, history, failNext };
}

export interface FakeDepsOptions {
  /** `MINTLIFY_CHANNEL_PROJECTS`: conversations routed to another project. */
  channelProjects?: Record<string, string>;
  /** Block types a `response_url` refuses (HTTP 400, `invalid_blocks`), as Slack does where it does not draw them. */
  refusedBlocks?: string[];
}

/**
 * The deps of the visitors feature around a fake service and a fake Slack client. People are answered by the real
 * replies module; what it posts to a `response_url` is kept in `responses` (each answered 200).
 */
export function fakeDeps(
  service: Pick<MintlifyClient, 'getVisitors'>,
  slack: ReturnType<typeof fakeSlack>['client'] = fakeSlack().client,
  options: FakeDepsOptions = {},
) {
  const logs = captureLogs();
  const mintlify = {
    projectId: PROJECT,
    apiKey: 'mint_x',
    apiUrl: 'http://127.0.0.1:1',
    channelProjects: options.channelProjects ?? {},
    projectKeys: {},
    docsUrls: {},
  };
  const responses: { url: string; body: Record<string, unknown> }[] = [];
  const refused = new Set(options.refusedBlocks ?? []);
  const postToResponseUrl = async (url: string, body: Record<string, unknown>) => {
    responses.push({ url, body });
    const blocks = (body.blocks ?? []) as { type: string }[];
    return blocks.some((b) => refused.has(b.type)) ? 400 : 200;
  };
  // The lanes of an engine no one works: what is added or scheduled there is only looked at (`engine.schedules`).
  const engine = createMemoryEngine({ log: logs.log });
  const deps = {
    config: { mintlify },
    projects: createProjects({ mintlify }),
    replies: createReplies({ slack: slack as unknown as webApi.WebClient, log: logs.log, postToResponseUrl }),
    log: logs.log,
    mintlify: service,
    store: { kind: 'memory', kv: new Keyv(), claims: createMemoryClaims(), close: async () => {} },
    slack,
    instanceId: 'test-instance',
    now: () => NOW,
    lanes: lanesOf(engine),
    workspace: SINGLE_WORKSPACE,
  } as unknown as Deps;
  return { deps, logs, responses, engine };
}

/** Everything a private answer said: its fallback text and the text of its blocks. */
export function saidIn(body: Record<string, unknown> | undefined): string {
  return [String(body?.text ?? ''), JSON.stringify(body?.blocks ?? [])].join('\n');
}

/** A door's deps: what it hands on (`deps.dispatch`) is only recorded; the door's test is about the door. */
export function fakeDoorDeps(options: FakeDepsOptions = {}) {
  const { deps, logs, responses } = fakeDeps(fakeVisitorsService(0), fakeSlack().client, options);
  const handedOn: { kind: string; data: unknown }[] = [];
  const doors: DoorDeps = { ...deps, dispatch: async ({ kind }, data) => void handedOn.push({ kind, data }) };
  return { deps: doors, handedOn, responses, logs };
}

/** A fake service with `rowCount` pages, a fake Slack client, and the deps around both. */
export function fakeVisitors(rowCount = 30, options: FakeDepsOptions = {}) {
  const service = fakeVisitorsService(rowCount);
  const slack = fakeSlack();
  return { service, slack, ...fakeDeps(service, slack.client, options) };
}

/** Who asked, in #docs, and the response_url their private answers go to. */
export const AUDIENCE = { userId: 'U123ALICE', channel: 'C123DOCS', responseUrl: 'http://127.0.0.1:9/respond' };

/** A request about the report of `query` (1–8 Nov 2026, first page, by default) on the default project. */
export function reportRequest(query: Partial<ReportQuery> = {}): ReportRequest {
  return {
    query: { from: '2026-11-01', to: '2026-11-08', limit: 10, offset: 0, ...query },
    project: PROJECT,
    audience: AUDIENCE,
  };
}
