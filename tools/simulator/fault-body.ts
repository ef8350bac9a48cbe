import { z } from 'zod';
import { AgentJobSchema, JOB_FIELDS, OPERATIONS } from './contract.js';
import type { Fault } from './faults.js';

// The JSON form of a fault, as a test sends it to `POST /__sim/faults` (see README.md beside this file).
// `path` is a regex source; `count` may be "Infinity" (default 1).

const CountSchema = z
  .union([z.number().int().positive(), z.literal('Infinity')])
  .default(1)
  .transform((count) => (count === 'Infinity' ? Number.POSITIVE_INFINITY : count));

const MatchSchema = z
  .strictObject({
    method: z.string().optional(),
    path: z
      .string()
      .refine(isRegex, 'path is not a valid regular expression')
      .transform((source) => new RegExp(source))
      .optional(),
    operation: z.enum(OPERATIONS).optional(),
  })
  .optional();

/** Any error status a service or a proxy in front of it may answer. */
const ErrorStatusSchema = z.number().int().min(400).max(599);
const FieldsSchema = z.array(z.enum(JOB_FIELDS)).optional();

const FaultBodySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('status'), status: ErrorStatusSchema, error: z.string().optional() }),
  z.strictObject({ kind: z.literal('slow'), delayMs: z.number().int().min(0) }),
  z.strictObject({ kind: z.literal('rate-limit'), retryAfterSec: z.number().int().min(0).optional() }),
  z.strictObject({ kind: z.literal('reset') }),
  z.strictObject({
    kind: z.literal('not-json'),
    status: z.number().int().min(200).max(599).default(200),
    body: z.string().default('<html><body><h1>502 Bad Gateway</h1></body></html>'),
    contentType: z.string().default('text/html'),
  }),
  z.strictObject({
    kind: z.literal('job'),
    keep: FieldsSchema,
    omit: FieldsSchema,
    // Documented values only, except `status`: a service may add a status the bot does not know yet.
    set: AgentJobSchema.extend({ status: z.string().optional() }).optional(),
    whenStatus: z.string().optional(),
  }),
  z.strictObject({ kind: z.literal('feedback'), pathAs: z.literal('url') }),
]);

export function parseFaultBody(body: unknown): { fault: Fault } | { error: string } {
  const common = z.object({ count: CountSchema, match: MatchSchema }).safeParse(body);
  if (!common.success) return { error: z.prettifyError(common.error) };
  const { count, match } = common.data;
  const { count: _count, match: _match, ...rest } = (body ?? {}) as Record<string, unknown>;
  const specific = FaultBodySchema.safeParse(rest);
  if (!specific.success) return { error: z.prettifyError(specific.error) };
  return { fault: withoutUndefined({ ...specific.data, count, ...(match && { match: withoutUndefined(match) }) }) };
}

/** Drops keys whose value is undefined, so a fault reads as the test wrote it. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as T;
}

function isRegex(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}
