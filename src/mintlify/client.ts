import ky, { HTTPError, type KyInstance, NetworkError, type Options, TimeoutError } from 'ky';
import type { z } from 'zod';
import { type Logger, redact } from '../log.js';
import { type AnalyticsCalls, analyticsCalls } from './analytics.js';
import { CREATE_JOB, type FailedResult, type ServiceFailure, type ServiceResult } from './failure.js';
import { parseRetryAfterMs } from './retry-after.js';
import {
  type AgentJob,
  AgentJobSchema,
  ErrorBodySchema,
  type JobAnswer,
  JobAnswerSchema,
  JobIdSchema,
  PromptSchema,
  type VisitorsQuery,
  VisitorsQuerySchema,
  type VisitorsResponse,
  VisitorsResponseSchema,
} from './schemas.js';

export const DEFAULT_TIMEOUT_MS = 10_000;
/** Used when a 429 carries no usable Retry-After. */
const FALLBACK_RETRY_AFTER_MS = 60_000;

export interface MintlifyClientOptions {
  apiUrl: string;
  /** The admin key for a project (projects may have keys of their own). */
  keyFor: (project: string) => string;
  log: Logger;
  timeoutMs?: number;
  /** Retries for GETs on network errors, timeouts and 5xx (ky's backoff, honouring Retry-After). */
  getRetries?: number;
  /** Told of every answer (retries included): its HTTP status, or `timeout` / `network` when there was none. */
  onResponse?: (operation: string, status: number | 'timeout' | 'network') => void;
}

/** Every call names its project: a job belongs to one for life, and each project may have its own key. */
export interface MintlifyClient extends AnalyticsCalls {
  createJob(project: string, prompt: string): Promise<ServiceResult<AgentJob>>;
  sendFollowUp(project: string, jobId: string, prompt: string): Promise<ServiceResult<AgentJob>>;
  getJob(project: string, jobId: string): Promise<ServiceResult<AgentJob>>;
  getVisitors(project: string, query: VisitorsQuery): Promise<ServiceResult<VisitorsResponse>>;
}

export function createMintlifyClient(options: MintlifyClientOptions): MintlifyClient {
  const { keyFor } = options;
  const onResponse = options.onResponse ?? (() => {});
  const transport: Transport = { http: createHttp(options, onResponse), onResponse, log: options.log };

  /** One call for `project`: its key travels only in the header, its answer comes back as a result. */
  const call = async <S extends z.ZodType>(
    operation: string,
    project: string,
    schema: S,
    path: string,
    options: Options,
  ): Promise<ServiceResult<z.output<S>>> => {
    const key = keyFor(project);
    if (!key) return failed({ operation, project }, { code: 'not_connected' });
    return send(transport, { operation, project }, schema, path.replace('{project}', encodeURIComponent(project)), {
      ...options,
      headers: { accept: 'application/json', authorization: `Bearer ${key}` },
    });
  };

  return {
    ...analyticsCalls(call, checked),
    async createJob(project, prompt) {
      const op = { operation: CREATE_JOB, project };
      const body = checked(op, PromptSchema, prompt);
      if (!body.ok) return body;
      // Never retried: a retried create could start a second agent.
      const options: Options = { method: 'post', json: { prompt: body.value }, retry: 0 };
      return call(op.operation, project, AgentJobSchema, 'v2/agent/{project}/job', options);
    },
    async sendFollowUp(project, jobId, prompt) {
      const op = { operation: 'send follow-up', project };
      const id = checked(op, JobIdSchema, jobId);
      const body = checked(op, PromptSchema, prompt);
      if (!id.ok) return id;
      if (!body.ok) return body;
      // Never retried: the agent would receive the instruction twice.
      const options: Options = { method: 'post', json: { prompt: body.value }, retry: 0 };
      const path = `v2/agent/{project}/job/${encodeURIComponent(id.value)}/message`;
      return theJob(await call(op.operation, project, JobAnswerSchema, path, options), id.value);
    },
    async getJob(project, jobId) {
      const op = { operation: 'get job', project };
      const id = checked(op, JobIdSchema, jobId);
      if (!id.ok) return id;
      const path = `v2/agent/{project}/job/${encodeURIComponent(id.value)}`;
      return theJob(await call(op.operation, project, JobAnswerSchema, path, { method: 'get' }), id.value);
    },
    async getVisitors(project, query) {
      const op = { operation: 'get visitors', project };
      const q = checked(op, VisitorsQuerySchema, query);
      if (!q.ok) return q;
      const { dateFrom, dateTo, limit, offset } = q.value;
      const options: Options = { method: 'get', searchParams: { dateFrom, dateTo, limit, offset } };
      return call(op.operation, project, VisitorsResponseSchema, 'v1/analytics/{project}/visitors', options);
    },
  };
}

/**
 * ky set up once: the deadline and GET retries (never POSTs). A retried attempt is counted as it is given up on;
 * the last answer in `send`. No afterResponse hook: ky tees every response for one, which doubled the allocation of
 * each poll (BENCHMARKS §8).
 */
function createHttp(options: MintlifyClientOptions, onResponse: Transport['onResponse']): KyInstance {
  return ky.create({
    prefix: options.apiUrl,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    // ky 2's `.json()` throws on an empty body: it is an answer outside the contract, as any other shape is.
    parseJson: (text) => (text === '' ? undefined : JSON.parse(text)),
    retry: {
      limit: options.getRetries ?? 2,
      methods: ['get'],
      statusCodes: [408, 500, 502, 503, 504],
      retryOnTimeout: true,
      backoffLimit: 2_000,
      maxRetryAfter: 5_000,
    },
    hooks: {
      beforeRetry: [({ options: hookOptions, error }) => onResponse(labelOf(hookOptions), answerOf(error))],
    },
  });
}

/** A get's or a follow-up's answer: without an `id` of its own it is the job asked about (the document requires none). */
const theJob = (answer: ServiceResult<JobAnswer>, id: string): ServiceResult<AgentJob> =>
  answer.ok ? { ...answer, value: { ...answer.value, id: answer.value.id ?? id } } : answer;

const labelOf = (options: Options) => String(options.context?.operation);

/** What came back for a request that failed: its HTTP status, or `timeout` / `network` when there was no answer. */
function answerOf(error: unknown): number | 'timeout' | 'network' {
  if (error instanceof HTTPError) return error.response.status;
  return error instanceof TimeoutError ? 'timeout' : 'network';
}

interface Operation {
  operation: string;
  project: string;
}

const failed = (op: Operation, failure: ServiceFailure): FailedResult => ({ ok: false, ...op, failure });

/** Input the client will not send: a failure before any request, so nothing can have happened. */
function checked<S extends z.ZodType>(op: Operation, schema: S, input: unknown): ServiceResult<z.output<S>> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const details = result.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`);
  return failed(op, { code: 'refused', message: 'invalid input', details });
}

interface Transport {
  http: KyInstance;
  onResponse: NonNullable<MintlifyClientOptions['onResponse']>;
  log: Logger;
}

async function send<S extends z.ZodType>(
  { http, onResponse, log }: Transport,
  op: Operation,
  schema: S,
  path: string,
  options: Options,
): Promise<ServiceResult<z.output<S>>> {
  let body: unknown;
  // `get job` → `get_job`: the metrics label.
  const label = op.operation.replaceAll(' ', '_');
  const started = performance.now();
  let answer: number | 'timeout' | 'network' | undefined;
  let status: number | undefined;
  try {
    const pending = http(path, { ...options, context: { operation: label } });
    answer = status = (await pending).status;
    body = await pending.json();
  } catch (error) {
    answer ??= answerOf(error);
    return failed(op, await failureOf(error, status));
  } finally {
    onResponse(label, answer ?? 'network');
    const duration_ms = Math.round(performance.now() - started);
    log.debug('mintlify.request', { method: options.method, path, http_status: answer, duration_ms });
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const reason = 'response does not match the API contract';
  return failed(op, { code: 'unavailable', reason, ambiguous: true, lost: 'unreadable', status });
}

/** Network failures that mean the request never reached the service, so nothing can have happened there. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** `answered`: the status that came before the body failed to read. */
async function failureOf(error: unknown, answered: number | undefined): Promise<ServiceFailure> {
  if (error instanceof TimeoutError)
    return { code: 'unavailable', reason: 'timed out', ambiguous: true, lost: 'timeout' };
  // A 2xx whose body is not JSON (a proxy's HTML page, say) is a bad answer, not a network failure.
  if (error instanceof SyntaxError) {
    return {
      code: 'unavailable',
      reason: 'response is not JSON',
      ambiguous: true,
      lost: 'unreadable',
      status: answered,
    };
  }
  if (!(error instanceof HTTPError)) {
    // fetch rejects with a TypeError (ky wraps it in a NetworkError) whose cause says why (ECONNREFUSED, socket hang
    // up, …); anything else is a bug.
    const fetchError = error instanceof NetworkError ? error.cause : error;
    if (!(fetchError instanceof TypeError)) throw error;
    const cause = (fetchError as { cause?: { code?: string } }).cause?.code;
    const reason = `network error${cause ? ` (${cause})` : ''}`;
    return { code: 'unavailable', reason, ambiguous: !NEVER_SENT.has(cause ?? ''), lost: 'network' };
  }
  const { status, headers } = error.response;
  // ky has read the body already: `data` is its parsed JSON (its text when not sent as JSON).
  const parsed = ErrorBodySchema.safeParse(error.data);
  const message = parsed.success ? redact(parsed.data.error) : undefined;
  switch (true) {
    case status === 401 || status === 403:
      return { code: 'unauthorized', status, message: message ?? 'unauthorized' };
    case status === 404:
      return { code: 'not_found', message: message ?? 'not found' };
    case status === 429: {
      const retryAfterMs = parseRetryAfterMs(headers.get('retry-after'));
      if (retryAfterMs === undefined)
        return { code: 'rate_limited', retryAfterMs: FALLBACK_RETRY_AFTER_MS, guessed: true };
      return { code: 'rate_limited', retryAfterMs };
    }
    // Any other 4xx (400, 413 prompt too large, 409, 402, 422, …) means the service did nothing; 408 is a timeout.
    case status >= 400 && status < 500 && status !== 408: {
      const details = parsed.data?.details?.map((d) => redact(d.message)) ?? [];
      return { code: 'refused', status, message: message ?? `refused (${status})`, details };
    }
    default: {
      const reason = `${status}${message ? ` ${message}` : ''}`;
      return {
        code: 'unavailable',
        reason,
        ambiguous: true,
        lost: status === 408 ? 'timeout' : 'error_status',
        status,
      };
    }
  }
}
