import { z } from 'zod';

// Written from Mintlify's published OpenAPI documents (Admin API v2, Analytics Export API v1).

/** The statuses the documents list. The service may send others (the documents require no field): see `status`. */
export const JOB_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;
export const JobStatusSchema = z.enum(JOB_STATUSES);
export type KnownJobStatus = z.infer<typeof JobStatusSchema>;

export function isKnownStatus(status: string): status is KnownJobStatus {
  return (JOB_STATUSES as readonly string[]).includes(status);
}

/**
 * `AgentJob`, read as tolerantly as the document allows: it marks no field required. A job without `status` is still
 * running until a poll says otherwise, and a status the bot does not know (`queued`, `cancelled`) is kept as it
 * came, read as not ended. A job without `id` is the one asked about (a get's or a follow-up's answer); only a
 * created job must name itself (`AgentJobSchema`): its id is how the bot follows it.
 */
export const JobAnswerSchema = z.object({
  id: z.string().min(1).optional(),
  status: z
    .string()
    .nullish()
    .transform((status) => status || 'active'),
  source: z
    .object({
      repository: z.string().optional(),
      ref: z.string().nullish(),
    })
    .nullish(),
  model: z.string().nullish(),
  prLink: z.string().nullish(),
  createdAt: z.string().nullish(),
  archivedAt: z.string().nullish(),
});
export type JobAnswer = z.infer<typeof JobAnswerSchema>;

/** `Error` (admin) and `AnalyticsErrorResponse` (analytics adds `details`). */
export const ErrorBodySchema = z.object({
  error: z.string(),
  details: z.array(z.object({ message: z.string() })).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export const VisitorCountsSchema = z.object({
  human: z.number(),
  ai: z.number(),
  total: z.number(),
});
export type VisitorCounts = z.infer<typeof VisitorCountsSchema>;

export const PageVisitorsSchema = VisitorCountsSchema.extend({ path: z.string() });
export type PageVisitors = z.infer<typeof PageVisitorsSchema>;

/** `VisitorsByPageResponse`. */
export const VisitorsResponseSchema = z.object({
  totals: VisitorCountsSchema,
  visitors: z.array(PageVisitorsSchema),
  hasMore: z.boolean(),
});
export type VisitorsResponse = z.infer<typeof VisitorsResponseSchema>;

export const VISITORS_MAX_LIMIT = 250;
export const VISITORS_DEFAULT_LIMIT = 50;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A day (`YYYY-MM-DD`) or an ISO 8601 date-time with its offset (`2026-11-24T00:00:00+13:00`), as documented. */
export const ServiceDateSchema = z.union([
  z.string().regex(ISO_DAY).refine(isCalendarDay, 'not a calendar date'),
  z.iso.datetime({ offset: true }),
]);

/** Query of `GET /v1/analytics/{projectId}/visitors`. `dateTo` is exclusive. */
export const VisitorsQuerySchema = z
  .object({
    dateFrom: ServiceDateSchema,
    dateTo: ServiceDateSchema,
    limit: z.number().int().min(1).max(VISITORS_MAX_LIMIT).default(VISITORS_DEFAULT_LIMIT),
    offset: z.number().int().min(0).default(0),
  })
  // A day alone is read as UTC midnight, as `Date.parse` does.
  .refine((q) => Date.parse(q.dateFrom) < Date.parse(q.dateTo), {
    message: 'dateFrom must be before dateTo (exclusive)',
    path: ['dateTo'],
  });
export type VisitorsQuery = z.input<typeof VisitorsQuerySchema>;

/** A Mintlify project id as this app accepts it: safe in a URL path, a store key and a file name. */
export const PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export const PromptSchema = z.string().trim().min(1, 'prompt is empty');

/** A real calendar day written `YYYY-MM-DD` (so not `2026-02-30` or `2026-13-01`). */
export function isCalendarDay(day: string): boolean {
  if (!ISO_DAY.test(day)) return false;
  const date = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === day;
}

/**
 * A job id as the bot addresses it in a path, encoded as one segment. The document allows any string, but an id that
 * a proxy on the way could read as more than one segment or as a query (`/`, `%`, `?`, `#`, whitespace, `..`) is
 * never sent: ids reach the bot from its store and from Slack metadata too. Anything else a service could mint
 * (`~`, `+`, `=`, `:`, `@`, long ids) is addressed as it came. Bounded so a log line stays small.
 */
export const JobIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:~+=@!$&'()*,;-]{0,999}$/, 'not a job id')
  .refine((id) => !id.includes('..'), 'not a job id');

/** A created job: its id is how the bot follows it, so it must name one. */
export const AgentJobSchema = JobAnswerSchema.extend({ id: JobIdSchema });
export type AgentJob = z.infer<typeof AgentJobSchema>;
