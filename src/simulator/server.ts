import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { type AgentJob, PromptSchema } from '../mintlify/schemas.js';
import { type Fault, FaultQueue, parseFaultBody } from './faults.js';
import { type JobOutcome, JobStore, type ScriptedEnd } from './jobs.js';
import { VisitorsDataSet } from './visitors-data.js';
import { parseVisitorsQuery } from './visitors-query.js';

export type { Fault, FaultMatch } from './faults.js';
export type { EndStatus, JobOutcome, ScriptedEnd } from './jobs.js';

export interface SimulatorOptions {
  /** Default 0 (any free port). */
  port?: number;
  now?: () => number;
  /** How long a job (or a follow-up run) stays active. Default 3000. */
  jobDurationMs?: number | ((prompt: string) => number);
  /** How each new run ends, asked when it starts (the playground's knob); unset: by the prompt's words. */
  scriptedEnd?: () => ScriptedEnd | undefined;
  createLimitPerHour?: number;
  followUpLimitPerHour?: number;
  /** Number of pages in the visitors data set. Default 300. */
  pathCount?: number;
  seed?: number;
  /** Projects that accept only their own admin key (401 for any other); the rest accept any `mint_` key. */
  projectKeys?: Record<string, string>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Parsed JSON, the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
  /** A fingerprint of the key presented ({@link keyFingerprint}), so tests tell which key went where, never the key. */
  keyFingerprint?: string;
}

export interface SimulatorCounts {
  creates: number;
  followUps: number;
  gets: number;
  visitors: number;
}

export interface Simulator {
  url: string;
  /** Every API request seen (not `/__sim`), without headers. */
  requests: RecordedRequest[];
  getJob(id: string): AgentJob | undefined;
  endJob(id: string, outcome?: JobOutcome): AgentJob;
  deleteJob(id: string): boolean;
  injectFault(fault: Fault): void;
  clearFaults(): void;
  /** Successful responses served per endpoint. */
  counts(): SimulatorCounts;
  /** Idempotent. */
  close(): Promise<void>;
}

interface Context {
  res: ServerResponse;
  params: { projectId: string; jobId: string };
  query: URLSearchParams;
  body: string;
}

interface Route {
  method: string;
  pattern: string[];
  auth: boolean;
  handle: (ctx: Context) => void;
}

const MAX_BODY_BYTES = 1_000_000;
const BEARER = /^Bearer mint_\S+$/;
const PromptBodySchema = z.object({ prompt: PromptSchema });

/** The first 12 hex digits of the key's SHA-256: enough to tell keys apart, useless to anyone reading a log. */
export function keyFingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const now = options.now ?? Date.now;
  const jobs = new JobStore({
    now,
    jobDurationMs: options.jobDurationMs ?? 3000,
    scriptedEnd: options.scriptedEnd,
    createLimitPerHour: options.createLimitPerHour ?? 100,
    followUpLimitPerHour: options.followUpLimitPerHour ?? 100,
  });
  const visitors = new VisitorsDataSet(options.pathCount ?? 300, options.seed ?? 1);
  const faults = new FaultQueue();
  const counts: SimulatorCounts = { creates: 0, followUps: 0, gets: 0, visitors: 0 };
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const routes: Route[] = [
    {
      method: 'POST',
      pattern: ['v2', 'agent', ':projectId', 'job'],
      auth: true,
      handle: ({ res, params, body }) => {
        const prompt = parsePrompt(res, body);
        if (prompt === undefined) return;
        const result = jobs.create(params.projectId, prompt);
        if (result.kind === 'rate-limited') return rateLimited(res, result.retryAfterSec);
        counts.creates += 1;
        send(res, 201, result.job);
      },
    },
    {
      method: 'GET',
      pattern: ['v2', 'agent', ':projectId', 'job', ':jobId'],
      auth: true,
      handle: ({ res, params }) => {
        const job = jobs.get(params.projectId, params.jobId);
        if (!job) return send(res, 404, { error: 'Job not found' });
        counts.gets += 1;
        send(res, 200, job);
      },
    },
    {
      method: 'POST',
      pattern: ['v2', 'agent', ':projectId', 'job', ':jobId', 'message'],
      auth: true,
      handle: ({ res, params, body }) => {
        const prompt = parsePrompt(res, body);
        if (prompt === undefined) return;
        const result = jobs.followUp(params.projectId, params.jobId, prompt);
        if (result.kind === 'not-found') return send(res, 404, { error: 'Job not found' });
        if (result.kind === 'archived') return send(res, 400, { error: 'Job is archived' });
        if (result.kind === 'rate-limited') return rateLimited(res, result.retryAfterSec);
        counts.followUps += 1;
        send(res, 200, result.job);
      },
    },
    {
      method: 'GET',
      pattern: ['v1', 'analytics', ':projectId', 'visitors'],
      auth: true,
      handle: ({ res, query }) => {
        const parsed = parseVisitorsQuery(query, now());
        if ('details' in parsed) return send(res, 400, { error: 'Invalid query parameters', details: parsed.details });
        const { fromMs, toMs, limit, offset } = parsed.range;
        counts.visitors += 1;
        send(res, 200, visitors.page(fromMs, toMs, limit, offset));
      },
    },
    {
      method: 'POST',
      pattern: ['__sim', 'faults'],
      auth: false,
      handle: ({ res, body }) => {
        const parsed = parseFaultBody(parseJson(body));
        if ('error' in parsed) return send(res, 400, { error: parsed.error });
        faults.add(parsed.fault);
        send(res, 201, { ok: true });
      },
    },
    {
      method: 'DELETE',
      pattern: ['__sim', 'faults'],
      auth: false,
      handle: ({ res }) => {
        faults.clear();
        send(res, 204);
      },
    },
  ];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(req);
    if (body === undefined) return send(res, 413, { error: 'Request body too large' });

    const control = url.pathname.startsWith('/__sim/');
    if (!control) {
      const key = req.headers.authorization?.replace(/^Bearer /, '');
      requests.push({
        method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body: parseJson(body),
        ...(key && { keyFingerprint: keyFingerprint(key) }),
      });
      const fault = faults.take(method, url.pathname);
      if (fault?.kind === 'reset') return void req.socket.destroy();
      if (fault?.kind === 'status') return send(res, fault.status, { error: `Simulated ${fault.status} error` });
      if (fault?.kind === 'rate-limit') return rateLimited(res, fault.retryAfterSec);
      if (fault?.kind === 'slow') await delay(fault.delayMs);
    }

    let segments: string[];
    try {
      segments = url.pathname.split('/').slice(1).map(decodeURIComponent);
    } catch {
      return send(res, 400, { error: 'Malformed path' });
    }
    const matching = routes.flatMap((route) => {
      const params = matchPattern(route.pattern, segments);
      return params ? [{ route, params }] : [];
    });
    if (matching.length === 0) return send(res, 404, { error: 'Not found' });
    const found = matching.find(({ route }) => route.method === method);
    if (!found) {
      res.setHeader('Allow', matching.map(({ route }) => route.method).join(', '));
      return send(res, 405, { error: 'Method not allowed' });
    }
    const ownKey = options.projectKeys?.[found.params.projectId];
    const authorization = req.headers.authorization ?? '';
    if (found.route.auth && (!BEARER.test(authorization) || (ownKey && authorization !== `Bearer ${ownKey}`))) {
      return send(res, 401, { error: 'Unauthorized' });
    }
    found.route.handle({ res, params: found.params, query: url.searchParams, body });
  }

  function delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) send(res, 500, { error: String(error) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    getJob: (id) => jobs.find(id),
    endJob: (id, outcome) => jobs.end(id, outcome),
    deleteJob: (id) => jobs.delete(id),
    injectFault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    counts: () => ({ ...counts }),
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function matchPattern(pattern: string[], segments: string[]): Context['params'] | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params = { projectId: '', jobId: '' };
  for (const [index, part] of pattern.entries()) {
    const segment = segments[index] ?? '';
    if (part === ':projectId' || part === ':jobId') {
      if (segment === '') return undefined;
      params[part === ':projectId' ? 'projectId' : 'jobId'] = segment;
    } else if (part !== segment) {
      return undefined;
    }
  }
  return params;
}

function parsePrompt(res: ServerResponse, body: string): string | undefined {
  const parsed = PromptBodySchema.safeParse(parseJson(body));
  if (parsed.success) return parsed.data.prompt;
  send(res, 400, {
    error: body.trim() === '' ? 'Missing JSON body' : `Invalid body: ${z.prettifyError(parsed.error)}`,
  });
  return undefined;
}

function rateLimited(res: ServerResponse, retryAfterSec: number): void {
  res.setHeader('Retry-After', String(retryAfterSec));
  send(res, 429, { error: 'Rate limit exceeded' });
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The body as text, or undefined when it is over the size limit. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
