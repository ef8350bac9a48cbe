import ky, { HTTPError, type KyInstance, type Options, TimeoutError } from 'ky';
import type { z } from 'zod';
import { type Logger, redact } from '../log.js';
import {
  InvalidRequestError,
  type MintlifyError,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
  UnavailableError,
} from './errors.js';
import { parseRetryAfterMs } from './retry-after.js';
import {
  type AgentJob,
  AgentJobSchema,
  ErrorBodySchema,
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
export interface MintlifyClient {
  createJob(project: string, prompt: string): Promise<AgentJob>;
  sendFollowUp(project: string, jobId: string, prompt: string): Promise<AgentJob>;
  getJob(project: string, jobId: string): Promise<AgentJob>;
  getVisitors(project: string, query: VisitorsQuery): Promise<VisitorsResponse>;
}

export function createMintlifyClient(options: MintlifyClientOptions): MintlifyClient {
  const { log, keyFor } = options;
  const onResponse = options.onResponse ?? (() => {});
  const started = new WeakMap<Request, number>();
  const http = ky.create({
    prefixUrl: options.apiUrl,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retry: {
      limit: options.getRetries ?? 2,
      methods: ['get'],
      statusCodes: [408, 500, 502, 503, 504],
      retryOnTimeout: true,
      backoffLimit: 2_000,
      maxRetryAfter: 5_000,
    },
    hooks: {
      beforeRequest: [(request) => void started.set(request, performance.now())],
      afterResponse: [
        (request, hookOptions, response) => {
          onResponse(String(hookOptions.context.operation), response.status);
          const since = started.get(request);
          log.debug('mintlify.request', {
            method: request.method,
            path: new URL(request.url).pathname,
            http_status: response.status,
            duration_ms: since === undefined ? undefined : Math.round(performance.now() - since),
          });
        },
      ],
    },
  });

  const transport = { http, onResponse };

  /** The path and headers of a call for `project`; its key travels only in the header. */
  const scoped = (project: string, path: string, options: Options): [string, Options] => [
    `${path.replace('{project}', encodeURIComponent(project))}`,
    { ...options, headers: { authorization: `Bearer ${keyFor(project)}` } },
  ];

  return {
    async createJob(project, prompt) {
      const op = 'create job';
      const body = { prompt: validate(op, project, PromptSchema, prompt) };
      // Never retried: a retried create could start a second agent.
      return call(
        transport,
        op,
        project,
        AgentJobSchema,
        ...scoped(project, 'v2/agent/{project}/job', { method: 'post', json: body, retry: 0 }),
      );
    },
    async sendFollowUp(project, jobId, prompt) {
      const op = 'send follow-up';
      const id = encodeURIComponent(validate(op, project, JobIdSchema, jobId));
      const body = { prompt: validate(op, project, PromptSchema, prompt) };
      // Never retried: the agent would receive the instruction twice.
      return call(
        transport,
        op,
        project,
        AgentJobSchema,
        ...scoped(project, `v2/agent/{project}/job/${id}/message`, { method: 'post', json: body, retry: 0 }),
      );
    },
    async getJob(project, jobId) {
      const op = 'get job';
      const id = encodeURIComponent(validate(op, project, JobIdSchema, jobId));
      return call(
        transport,
        op,
        project,
        AgentJobSchema,
        ...scoped(project, `v2/agent/{project}/job/${id}`, { method: 'get' }),
      );
    },
    async getVisitors(project, query) {
      const op = 'get visitors';
      const q = validate(op, project, VisitorsQuerySchema, query);
      const searchParams = { dateFrom: q.dateFrom, dateTo: q.dateTo, limit: q.limit, offset: q.offset };
      return call(
        transport,
        op,
        project,
        VisitorsResponseSchema,
        ...scoped(project, 'v1/analytics/{project}/visitors', { method: 'get', searchParams }),
      );
    },
  };
}

function validate<S extends z.ZodType>(operation: string, project: string, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new InvalidRequestError(
    operation,
    project,
    'invalid input',
    result.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`),
  );
}

interface Transport {
  http: KyInstance;
  onResponse: NonNullable<MintlifyClientOptions['onResponse']>;
}

async function call<S extends z.ZodType>(
  { http, onResponse }: Transport,
  operation: string,
  project: string,
  schema: S,
  path: string,
  options: Options,
): Promise<z.output<S>> {
  let body: unknown;
  // `get job` → `get_job`: the metrics label.
  const label = operation.replaceAll(' ', '_');
  try {
    body = await http(path, { ...options, context: { operation: label } }).json();
  } catch (error) {
    // Answers (errors included) are counted in the afterResponse hook; these had none.
    if (error instanceof TimeoutError) onResponse(label, 'timeout');
    else if (!(error instanceof HTTPError) && !(error instanceof SyntaxError)) onResponse(label, 'network');
    throw await toMintlifyError(operation, project, error);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new UnavailableError(operation, project, 'response does not match the API contract', true);
  return parsed.data;
}

/** Network failures that mean the request never reached the service, so nothing can have happened there. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

async function toMintlifyError(operation: string, project: string, error: unknown): Promise<MintlifyError> {
  if (error instanceof TimeoutError) return new UnavailableError(operation, project, 'timed out', true);
  // A 2xx whose body is not JSON (a proxy's HTML page, say) is a bad answer, not a network failure.
  if (error instanceof SyntaxError) return new UnavailableError(operation, project, 'response is not JSON', true);
  if (!(error instanceof HTTPError)) {
    // fetch rejects with a TypeError whose cause says why (ECONNREFUSED, socket hang up, …).
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const reason = `network error${cause ? ` (${cause})` : ''}`;
    return new UnavailableError(operation, project, reason, !NEVER_SENT.has(cause ?? ''));
  }
  const { status, headers } = error.response;
  const parsed = ErrorBodySchema.safeParse(await error.response.json().catch(() => undefined));
  const message = parsed.success ? redact(parsed.data.error) : undefined;
  switch (true) {
    case status === 400 || status === 422:
      return new InvalidRequestError(
        operation,
        project,
        message ?? 'invalid request',
        parsed.data?.details?.map((d) => redact(d.message)),
      );
    case status === 401 || status === 403:
      return new UnauthorizedError(operation, project, `${status} ${message ?? 'unauthorized'}`);
    case status === 404:
      return new NotFoundError(operation, project, message ?? 'not found');
    case status === 429:
      return new RateLimitedError(
        operation,
        project,
        parseRetryAfterMs(headers.get('retry-after')) ?? FALLBACK_RETRY_AFTER_MS,
      );
    default:
      return new UnavailableError(operation, project, `${status}${message ? ` ${message}` : ''}`, true, status);
  }
}
