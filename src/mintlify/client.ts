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
  apiKey: string;
  projectId: string;
  log: Logger;
  timeoutMs?: number;
  /** Retries for GETs on network errors, timeouts and 5xx (ky's backoff, honouring Retry-After). */
  getRetries?: number;
}

export interface MintlifyClient {
  createJob(prompt: string): Promise<AgentJob>;
  sendFollowUp(jobId: string, prompt: string): Promise<AgentJob>;
  getJob(jobId: string): Promise<AgentJob>;
  getVisitors(query: VisitorsQuery): Promise<VisitorsResponse>;
}

export function createMintlifyClient(options: MintlifyClientOptions): MintlifyClient {
  const { log } = options;
  const project = encodeURIComponent(options.projectId);
  const started = new WeakMap<Request, number>();
  const http = ky.create({
    prefixUrl: options.apiUrl,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    headers: { authorization: `Bearer ${options.apiKey}` },
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
        (request, _options, response) => {
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

  return {
    async createJob(prompt) {
      const op = 'create job';
      const body = { prompt: validate(op, PromptSchema, prompt) };
      // Never retried: a retried create could start a second agent.
      return call(http, op, AgentJobSchema, `v2/agent/${project}/job`, { method: 'post', json: body, retry: 0 });
    },
    async sendFollowUp(jobId, prompt) {
      const op = 'send follow-up';
      const id = encodeURIComponent(validate(op, JobIdSchema, jobId));
      const body = { prompt: validate(op, PromptSchema, prompt) };
      // Never retried: the agent would receive the instruction twice.
      return call(http, op, AgentJobSchema, `v2/agent/${project}/job/${id}/message`, {
        method: 'post',
        json: body,
        retry: 0,
      });
    },
    async getJob(jobId) {
      const op = 'get job';
      const id = encodeURIComponent(validate(op, JobIdSchema, jobId));
      return call(http, op, AgentJobSchema, `v2/agent/${project}/job/${id}`, { method: 'get' });
    },
    async getVisitors(query) {
      const op = 'get visitors';
      const q = validate(op, VisitorsQuerySchema, query);
      const searchParams = { dateFrom: q.dateFrom, dateTo: q.dateTo, limit: q.limit, offset: q.offset };
      return call(http, op, VisitorsResponseSchema, `v1/analytics/${project}/visitors`, {
        method: 'get',
        searchParams,
      });
    },
  };
}

function validate<S extends z.ZodType>(operation: string, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new InvalidRequestError(
    operation,
    'invalid input',
    result.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`),
  );
}

async function call<S extends z.ZodType>(
  http: KyInstance,
  operation: string,
  schema: S,
  path: string,
  options: Options,
): Promise<z.output<S>> {
  let body: unknown;
  try {
    body = await http(path, options).json();
  } catch (error) {
    throw await toMintlifyError(operation, error);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new UnavailableError(operation, 'response does not match the API contract');
  return parsed.data;
}

async function toMintlifyError(operation: string, error: unknown): Promise<MintlifyError> {
  if (error instanceof TimeoutError) return new UnavailableError(operation, 'timed out');
  // A 2xx whose body is not JSON (a proxy's HTML page, say) is a bad answer, not a network failure.
  if (error instanceof SyntaxError) return new UnavailableError(operation, 'response is not JSON');
  if (!(error instanceof HTTPError)) {
    // fetch rejects with a TypeError whose cause says why (ECONNREFUSED, socket hang up, …).
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return new UnavailableError(operation, `network error${cause ? ` (${cause})` : ''}`);
  }
  const { status, headers } = error.response;
  const parsed = ErrorBodySchema.safeParse(await error.response.json().catch(() => undefined));
  const message = parsed.success ? redact(parsed.data.error) : undefined;
  switch (true) {
    case status === 400 || status === 422:
      return new InvalidRequestError(
        operation,
        message ?? 'invalid request',
        parsed.data?.details?.map((d) => redact(d.message)),
      );
    case status === 401 || status === 403:
      return new UnauthorizedError(operation, `${status} ${message ?? 'unauthorized'}`);
    case status === 404:
      return new NotFoundError(operation, message ?? 'not found');
    case status === 429:
      return new RateLimitedError(operation, parseRetryAfterMs(headers.get('retry-after')) ?? FALLBACK_RETRY_AFTER_MS);
    default:
      return new UnavailableError(operation, `${status}${message ? ` ${message}` : ''}`, status);
  }
}
