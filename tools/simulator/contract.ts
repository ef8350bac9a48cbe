import { z } from 'zod';
import {
  CallerStatsSchema,
  ConversationsResponseSchema,
  FeedbackByPageSchema,
  FeedbackResponseSchema,
  SearchesResponseSchema,
  ThreadResponseSchema,
} from './insights-contract.js';

// The simulator's own reading of Mintlify's OpenAPI documents (Admin API 2.0.0, Analytics Export API 1.0.0).
// Written apart from the app's src/mintlify/schemas.ts on purpose: a simulator that shared the app's schemas
// would agree with every mistake in them. Request schemas say what the simulator accepts; response schemas are
// strict (no field the documents do not name), so a test can show that every answer it sends is documented.

/** `AgentJob.status`. The document lists these four; the `job` switch can send others (see faults.ts). */
export const JOB_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

const dateTime = z.iso.datetime({ offset: true });

/** `AgentJob`: the document marks no field required; `source`, `model` and `createdAt` are not nullable. */
export const AgentJobSchema = z.strictObject({
  id: z.string().optional(),
  status: z.enum(JOB_STATUSES).optional(),
  source: z.strictObject({ repository: z.string().optional(), ref: z.string().nullable().optional() }).optional(),
  model: z.string().optional(),
  prLink: z.url().nullable().optional(),
  createdAt: dateTime.optional(),
  archivedAt: dateTime.nullable().optional(),
});
export type AgentJob = z.infer<typeof AgentJobSchema>;
export const JOB_FIELDS = ['id', 'status', 'source', 'model', 'prLink', 'createdAt', 'archivedAt'] as const;
export type JobField = (typeof JOB_FIELDS)[number];

/** Admin `Error`: `{"error": "..."}`, and even `error` is not required. */
export const AdminErrorSchema = z.strictObject({ error: z.string().optional() });

/** Analytics `AnalyticsErrorResponse`: `error` required, `details[].message` required. */
export const AnalyticsErrorSchema = z.strictObject({
  error: z.string(),
  details: z.array(z.strictObject({ message: z.string() })).optional(),
});

const counts = { human: z.number(), ai: z.number(), total: z.number() };
/** `VisitorsByPageResponse`: every field required. */
export const VisitorsResponseSchema = z.strictObject({
  totals: z.strictObject(counts),
  visitors: z.array(z.strictObject({ path: z.string(), ...counts })),
  hasMore: z.boolean(),
});
export type VisitorsResponse = z.infer<typeof VisitorsResponseSchema>;
export type PageVisitors = VisitorsResponse['visitors'][number];
export type VisitorCounts = VisitorsResponse['totals'];

/**
 * Body of create and follow-up: `{"prompt": string, minLength 1}`; other fields are not forbidden, so ignored.
 * The simulator also refuses a prompt of only spaces, as the service is expected to (an agent cannot act on it).
 */
export const PromptBodySchema = z.object({ prompt: z.string().trim().min(1, 'prompt is empty') });

/** Visitors query: `limit` 1-250 (default 50), `offset` ≥ 0 (default 0); dates `YYYY-MM-DD` or ISO 8601. */
export const VISITORS_MAX_LIMIT = 250;
export const VISITORS_DEFAULT_LIMIT = 50;

/** The documented operations, named as the switches name them. */
export const OPERATIONS = [
  'create',
  'get',
  'follow-up',
  'visitors',
  'feedback',
  'feedback-by-page',
  'searches',
  'assistant',
  'assistant-thread',
  'caller-stats',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * Every status each operation documents, with its body. Both documents put every path behind `bearerAuth`
 * (HTTP bearer) yet list no 401 or 403: {@link AUTH_STATUSES} are what HTTP bearer auth answers (RFC 6750 §3.1).
 */
export const DOCUMENTED_RESPONSES: Record<Operation, Record<number, z.ZodType>> = {
  create: { 201: AgentJobSchema, 400: AdminErrorSchema, 429: AdminErrorSchema },
  get: { 200: AgentJobSchema, 404: AdminErrorSchema },
  'follow-up': { 200: AgentJobSchema, 400: AdminErrorSchema, 404: AdminErrorSchema, 429: AdminErrorSchema },
  visitors: { 200: VisitorsResponseSchema, 400: AnalyticsErrorSchema, 500: AnalyticsErrorSchema },
  feedback: { 200: FeedbackResponseSchema, 400: AnalyticsErrorSchema, 500: AnalyticsErrorSchema },
  'feedback-by-page': { 200: FeedbackByPageSchema, 400: AnalyticsErrorSchema, 500: AnalyticsErrorSchema },
  searches: { 200: SearchesResponseSchema, 400: AnalyticsErrorSchema, 500: AnalyticsErrorSchema },
  assistant: { 200: ConversationsResponseSchema, 400: AnalyticsErrorSchema, 500: AnalyticsErrorSchema },
  'assistant-thread': {
    200: ThreadResponseSchema,
    400: AnalyticsErrorSchema,
    404: AnalyticsErrorSchema,
    500: AnalyticsErrorSchema,
  },
  'caller-stats': { 200: CallerStatsSchema, 400: AnalyticsErrorSchema, 500: AnalyticsErrorSchema },
};
const ADMIN_OPERATIONS: readonly Operation[] = ['create', 'get', 'follow-up'];
export const AUTH_STATUSES = [401, 403] as const;

/** The schema of an operation's answer with `status`: documented ones, else the error body of its document. */
export function responseSchema(operation: Operation, status: number): z.ZodType | undefined {
  const documented = DOCUMENTED_RESPONSES[operation][status];
  if (documented) return documented;
  if (status < 400) return undefined;
  return ADMIN_OPERATIONS.includes(operation) ? AdminErrorSchema : AnalyticsErrorSchema;
}
