import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { type Operation, PromptBodySchema } from './contract.js';
import type { SimulatedJob, SimulatedJobs } from './jobs.js';
import type { VisitorsDataSet } from './visitors-data.js';
import { parseVisitorsQuery } from './visitors-query.js';
import { type PathParams, parseJson, rateLimited, send } from './wire.js';

export interface Context {
  res: ServerResponse;
  params: PathParams;
  query: URLSearchParams;
  body: string;
  /** Answers with a job, reshaped when a `job` switch is pending for this request. */
  sendJob(status: number, job: SimulatedJob): void;
  /** Whether a `feedback` switch is pending for this request (it is then used up): paths are written as URLs. */
  pathsAsUrls(): boolean;
  /** Answers 200 with a list (`ROW_LISTS`), reshaped when a `rows` switch is pending for this request. */
  sendRows(answer: object): void;
}

export interface Route {
  method: string;
  pattern: readonly string[];
  /** Set on the documented operations, which need a key; unset on the simulator's own `/__sim` routes. */
  operation?: Operation;
  handle: (ctx: Context) => void;
}

export interface SimulatorCounts {
  creates: number;
  followUps: number;
  gets: number;
  visitors: number;
  /** Feedback, searches and assistant answers (insights-routes.ts). */
  insights: number;
}

export interface ApiDeps {
  jobs: SimulatedJobs;
  visitors: VisitorsDataSet;
  now: () => number;
  counts: SimulatorCounts;
}

/** The documented operations, answered with the documented statuses and bodies (contract.ts). */
export function apiRoutes({ jobs, visitors, now, counts }: ApiDeps): Route[] {
  return [
    {
      method: 'POST',
      pattern: ['v2', 'agent', ':projectId', 'job'],
      operation: 'create',
      handle: ({ res, params, body, sendJob }) => {
        const prompt = parsePrompt(res, body);
        if (prompt === undefined) return;
        const result = jobs.create(params.projectId, prompt);
        if (result.kind === 'rate-limited') return rateLimited(res, result.retryAfterSec);
        counts.creates += 1;
        sendJob(201, result.job);
      },
    },
    {
      method: 'GET',
      pattern: ['v2', 'agent', ':projectId', 'job', ':jobId'],
      operation: 'get',
      handle: ({ res, params, sendJob }) => {
        const job = jobs.get(params.projectId, params.jobId);
        if (!job) return send(res, 404, { error: 'Job not found' });
        counts.gets += 1;
        sendJob(200, job);
      },
    },
    {
      method: 'POST',
      pattern: ['v2', 'agent', ':projectId', 'job', ':jobId', 'message'],
      operation: 'follow-up',
      handle: ({ res, params, body, sendJob }) => {
        const prompt = parsePrompt(res, body);
        if (prompt === undefined) return;
        const result = jobs.followUp(params.projectId, params.jobId, prompt);
        if (result.kind === 'not-found') return send(res, 404, { error: 'Job not found' });
        if (result.kind === 'archived') return send(res, 400, { error: 'Job is archived' });
        if (result.kind === 'rate-limited') return rateLimited(res, result.retryAfterSec);
        counts.followUps += 1;
        sendJob(200, result.job);
      },
    },
    {
      method: 'GET',
      pattern: ['v1', 'analytics', ':projectId', 'visitors'],
      operation: 'visitors',
      handle: ({ res, query, sendRows }) => {
        const parsed = parseVisitorsQuery(query, now());
        if ('details' in parsed) return send(res, 400, { error: 'Invalid query parameters', details: parsed.details });
        const { fromMs, toMs, limit, offset } = parsed.range;
        counts.visitors += 1;
        sendRows(visitors.page(fromMs, toMs, limit, offset));
      },
    },
  ];
}

function parsePrompt(res: ServerResponse, body: string): string | undefined {
  const parsed = PromptBodySchema.safeParse(parseJson(body));
  if (parsed.success) return parsed.data.prompt;
  send(res, 400, {
    error: body.trim() === '' ? 'Missing JSON body' : `Invalid body: ${z.prettifyError(parsed.error)}`,
  });
  return undefined;
}
