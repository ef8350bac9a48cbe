import { z } from 'zod';
import { CursorSchema } from '../mintlify/analytics-schemas.js';
import { AudienceSchema } from '../slack/reply.js';
import { ReportQuerySchema } from '../visitors/index.js';
import { EvidenceSchema } from './evidence.js';
import { MAX_ROWS } from './rows.js';

/** What `/insights` shows: one of readers' three signals, or a short digest of all three. */
export const VIEWS = ['feedback', 'searches', 'questions'] as const;
export const ViewSchema = z.enum([...VIEWS, 'digest']);
export type View = z.infer<typeof ViewSchema>;

/** A cursor a Next → button can carry: its value holds 2,000 characters, the page's range and rows included. */
const ButtonCursorSchema = CursorSchema.max(512);
/** Whether Next → can carry `cursor` (a longer one leaves the rest to Download CSV). */
export const fitsButton = (cursor: string) => ButtonCursorSchema.safeParse(cursor).success;

/** A view's page as asked (typed, or carried by Next →): its range, rows, and where the service's cursor is. */
export const InsightsPageSchema = z
  .object({
    view: ViewSchema,
    query: ReportQuerySchema.refine((q) => q.limit <= MAX_ROWS, `at most ${MAX_ROWS} rows`),
    /** The service's cursor (searches, questions); feedback pages by `query.offset`. */
    cursor: ButtonCursorSchema.optional(),
    /** Rows shown on the pages before this one (searches, questions), so its rows are numbered on from there. */
    before: z.number().int().min(0).optional(),
  })
  .strict();
export type InsightsPage = z.infer<typeof InsightsPageSchema>;

/** What the doors hand on: the page, the project it is about, and who asked where. */
export const InsightsRequestSchema = InsightsPageSchema.extend({ project: z.string(), audience: AudienceSchema });
export type InsightsRequest = z.infer<typeof InsightsRequestSchema>;

/** A Next → button's value: the page, which names its project once shown. */
export function encodePage(page: InsightsPage): string {
  return JSON.stringify(page);
}

export function decodePage(value: unknown): InsightsPage | undefined {
  if (typeof value !== 'string' || value.length > 2000) return undefined;
  try {
    const parsed = InsightsPageSchema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A submitted Draft a fix form: the job to start, and the claim its submission took (`draft-claim.ts`). */
export const DraftStartSchema = z.object({
  project: z.string(),
  instruction: z.string(),
  evidence: EvidenceSchema,
  audience: AudienceSchema,
  owner: z.string(),
});
export type DraftStart = z.infer<typeof DraftStartSchema>;
