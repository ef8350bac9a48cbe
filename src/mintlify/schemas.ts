import { z } from 'zod';

// Written from Mintlify's published OpenAPI documents (Admin API v2, Analytics Export API v1).

export const JOB_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;
export const JobStatusSchema = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof JobStatusSchema>;

/** `AgentJob`. The document marks no field required; we need `id` and `status` to act on a job. */
export const AgentJobSchema = z.object({
  id: z.string().min(1),
  status: JobStatusSchema,
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
export type AgentJob = z.infer<typeof AgentJobSchema>;

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

/** Query of `GET /v1/analytics/{projectId}/visitors`. Dates are `YYYY-MM-DD`; `dateTo` is exclusive. */
export const VisitorsQuerySchema = z
  .object({
    dateFrom: z.string().regex(ISO_DAY).refine(isCalendarDay, 'not a calendar date'),
    dateTo: z.string().regex(ISO_DAY).refine(isCalendarDay, 'not a calendar date'),
    limit: z.number().int().min(1).max(VISITORS_MAX_LIMIT).default(VISITORS_DEFAULT_LIMIT),
    offset: z.number().int().min(0).default(0),
  })
  .refine((q) => q.dateFrom < q.dateTo, { message: 'dateFrom must be before dateTo (exclusive)', path: ['dateTo'] });
export type VisitorsQuery = z.input<typeof VisitorsQuerySchema>;

export const PromptSchema = z.string().trim().min(1, 'prompt is empty');

/** A real calendar day written `YYYY-MM-DD` (so not `2026-02-30` or `2026-13-01`). */
export function isCalendarDay(day: string): boolean {
  if (!ISO_DAY.test(day)) return false;
  const date = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === day;
}

/** Job ids travel in URL paths and button values: plain tokens only, never `.`/`..`-style segments. */
export const JobIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, 'not a job id')
  .refine((id) => !id.includes('..'), 'not a job id');
