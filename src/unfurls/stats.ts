import { z } from 'zod';
import { VisitorCountsSchema } from '../mintlify/schemas.js';

// What an unfurl shows of a docs page: its numbers over the last days against the days before (`page-stats.ts`
// reads them; `blocks.ts` shows them).

/** The last this many days, today included, against the same days before. */
export const STATS_DAYS = 7;

/** Readers' thumbs up and down of a page. */
export const RatingsSchema = z.object({ up: z.number(), down: z.number() });
export type Ratings = z.infer<typeof RatingsSchema>;

/** A page's visitors over the last 7 days and the 7 before (undefined: not among them), or nothing known. */
export const PageStatsSchema = z.discriminatedUnion('known', [
  z.object({
    known: z.literal(true),
    /** The first and last of the 7 days (UTC). */
    from: z.string(),
    to: z.string(),
    current: VisitorCountsSchema,
    previous: VisitorCountsSchema.optional(),
    /** Readers' thumbs up and down over the same 7 days, when they rated the page. */
    ratings: RatingsSchema.optional(),
  }),
  z.object({ known: z.literal(false) }),
]);
export type PageStats = z.infer<typeof PageStatsSchema>;
