import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiRoutes, type Route, type SimulatorCounts } from './api-routes.js';
import { controlRoutes } from './control-routes.js';
import {
  type Fault,
  FaultQueue,
  type FaultTarget,
  ROW_LISTS,
  type RowsOperation,
  reshapes,
  shapeJob,
  shapeRows,
} from './faults.js';
import { InsightsDataSet } from './insights-data.js';
import { insightsRoutes } from './insights-routes.js';
import { type JobOutcome, type ScriptedEnd, type SimulatedJob, SimulatedJobs } from './jobs.js';
import { type KeyConfig, KeyRing, keyFingerprint } from './keys.js';
import { VisitorsDataSet } from './visitors-data.js';
import { matchPattern, parseJson, rateLimited, readBody, send, sendText } from './wire.js';

export type { SimulatorCounts } from './api-routes.js';
export type { Fault, FaultMatch, JobShape, RowsShape } from './faults.js';
export type { EndStatus, JobOutcome, ScriptedEnd, SimulatedJob } from './jobs.js';
export type { KeyConfig, UnservedProjectStatus } from './keys.js';
export { keyFingerprint } from './keys.js';

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
  /** How long a follow-up of an ended job goes unseen (it still shows its previous end). Default 0. */
  followUpTakeUpMs?: number;
  /** Number of pages in the visitors data set. Default 300. */
  pathCount?: number;
  seed?: number;
  /** Projects that accept only their own admin key (401 for any other); the rest accept any `mint_` key. */
  projectKeys?: Record<string, string>;
  /** Which key serves which projects; when set, no other key works (and `projectKeys` is not used). */
  keys?: KeyConfig;
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

export interface Simulator {
  url: string;
  /** Every API request seen (not `/__sim`), without headers. */
  requests: RecordedRequest[];
  getJob(id: string): SimulatedJob | undefined;
  endJob(id: string, outcome?: JobOutcome): SimulatedJob;
  deleteJob(id: string): boolean;
  /** Same as `POST /__sim/faults`. */
  injectFault(fault: Fault): void;
  /** Same as `DELETE /__sim/faults`. */
  clearFaults(): void;
  /** Same as `PUT /__sim/keys`; `undefined` is `DELETE /__sim/keys` (any `mint_` key again). */
  setKeys(config: KeyConfig | undefined): void;
  /** Successful responses served per endpoint. */
  counts(): SimulatorCounts;
  /** Idempotent. */
  close(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const now = options.now ?? Date.now;
  const jobs = new SimulatedJobs({
    now,
    jobDurationMs: options.jobDurationMs ?? 3000,
    scriptedEnd: options.scriptedEnd,
    createLimitPerHour: options.createLimitPerHour ?? 100,
    followUpLimitPerHour: options.followUpLimitPerHour ?? 100,
    followUpTakeUpMs: options.followUpTakeUpMs ?? 0,
  });
  const visitors = new VisitorsDataSet(options.pathCount ?? 300, options.seed ?? 1);
  const faults = new FaultQueue();
  const keys = new KeyRing(options.projectKeys, options.keys);
  const counts: SimulatorCounts = { creates: 0, followUps: 0, gets: 0, visitors: 0, insights: 0 };
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const insights = new InsightsDataSet(options.seed ?? 1);
  const routes: Route[] = [
    ...apiRoutes({ jobs, visitors, now, counts }),
    ...insightsRoutes({ data: insights, now, counts }),
    ...controlRoutes({ faults, keys }),
  ];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(req);
    if (body === undefined) return send(res, 413, { error: 'Request body too large' });

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
    const found = matching.find(({ route }) => route.method === method);
    const target: FaultTarget = { method, path: url.pathname, operation: found?.route.operation };

    if (!url.pathname.startsWith('/__sim/')) {
      const key = req.headers.authorization?.replace(/^Bearer /, '');
      requests.push({
        method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body: parseJson(body),
        ...(key && { keyFingerprint: keyFingerprint(key) }),
      });
      if (await answeredByFault(req, res, target)) return;
    }

    if (matching.length === 0) return send(res, 404, { error: 'Not found' });
    if (!found) {
      res.setHeader('Allow', matching.map(({ route }) => route.method).join(', '));
      return send(res, 405, { error: 'Method not allowed' });
    }
    if (found.route.operation) {
      const verdict = keys.check(req.headers.authorization, found.params.projectId);
      if (!verdict.ok) return send(res, verdict.status, { error: verdict.error });
    }
    const sendJob = (status: number, job: SimulatedJob) => {
      const shape = faults.take(target, (f) => f.kind === 'job' && (!f.whenStatus || f.whenStatus === job.status));
      send(res, status, shape?.kind === 'job' ? shapeJob(job, shape) : job);
    };
    const pathsAsUrls = () => faults.take(target, (f) => f.kind === 'feedback') !== undefined;
    const sendRows = (answer: object) => {
      const operation = target.operation as RowsOperation;
      const shapes = operation in ROW_LISTS ? faults.takeAll(target, (f) => f.kind === 'rows') : [];
      send(
        res,
        200,
        shapes.reduce(
          (shaped, shape) => (shape.kind === 'rows' ? shapeRows(operation, shaped, shape) : shaped),
          answer,
        ),
      );
    };
    found.route.handle({ res, params: found.params, query: url.searchParams, body, sendJob, pathsAsUrls, sendRows });
  }

  /** Applies the first pending fault that replaces or delays this answer; true when it answered. */
  async function answeredByFault(req: IncomingMessage, res: ServerResponse, target: FaultTarget): Promise<boolean> {
    const fault = faults.take(target, (f) => !reshapes(f));
    switch (fault?.kind) {
      case 'reset':
        req.socket.destroy();
        return true;
      case 'status':
        send(res, fault.status, { error: fault.error ?? `Simulated ${fault.status} error` });
        return true;
      case 'rate-limit':
        rateLimited(res, fault.retryAfterSec);
        return true;
      case 'not-json':
        sendText(res, fault.status, fault.body, fault.contentType);
        return true;
      case 'slow':
        await delay(fault.delayMs);
        return false;
      default:
        return false;
    }
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
    setKeys: (config) => keys.configure(config),
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
