import { z } from 'zod';
import { AgentJobSchema, JOB_FIELDS, OPERATIONS, VisitorsResponseSchema } from './contract.js';
import { type Fault, ROW_LISTS, type RowsOperation } from './faults.js';
import {
  ConversationSchema,
  FeedbackFieldsSchema,
  PageFeedbackSchema,
  SearchesResponseSchema,
  SearchRowSchema,
} from './insights-contract.js';

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
  z.strictObject({
    kind: z.literal('rows'),
    set: z.record(z.string(), z.unknown()).optional(),
    first: z.number().int().min(1).optional(),
    answer: z.record(z.string(), z.unknown()).optional(),
  }),
]);

/** What a `rows` switch may set on each operation's rows and answer: documented fields and values only. */
const ROWS: Record<RowsOperation, { set: z.ZodType; answer: z.ZodType }> = {
  visitors: {
    set: VisitorsResponseSchema.shape.visitors.element.partial(),
    answer: VisitorsResponseSchema.pick({ totals: true }).partial(),
  },
  feedback: { set: FeedbackFieldsSchema.partial(), answer: z.strictObject({}) },
  'feedback-by-page': { set: PageFeedbackSchema.partial(), answer: z.strictObject({}) },
  searches: { set: SearchRowSchema.partial(), answer: SearchesResponseSchema.pick({ totalSearches: true }).partial() },
  assistant: { set: ConversationSchema.partial(), answer: z.strictObject({}) },
};

/** A `rows` switch names one list operation, and sets only what that operation's document allows. */
function rowsError(fault: Fault): string | undefined {
  if (fault.kind !== 'rows') return undefined;
  const operation = fault.match?.operation;
  if (!operation || !(operation in ROW_LISTS))
    return `a rows switch needs match.operation, one of: ${Object.keys(ROW_LISTS).join(', ')}`;
  const allowed = ROWS[operation as RowsOperation];
  for (const [part, value] of [
    ['set', fault.set],
    ['answer', fault.answer],
  ] as const) {
    const checked = allowed[part].safeParse(value ?? {});
    if (!checked.success) return `${part}: ${z.prettifyError(checked.error)}`;
  }
  return undefined;
}

export function parseFaultBody(body: unknown): { fault: Fault } | { error: string } {
  const common = z.object({ count: CountSchema, match: MatchSchema }).safeParse(body);
  if (!common.success) return { error: z.prettifyError(common.error) };
  const { count, match } = common.data;
  const { count: _count, match: _match, ...rest } = (body ?? {}) as Record<string, unknown>;
  const specific = FaultBodySchema.safeParse(rest);
  if (!specific.success) return { error: z.prettifyError(specific.error) };
  const fault = withoutUndefined({ ...specific.data, count, ...(match && { match: withoutUndefined(match) }) });
  const error = rowsError(fault);
  return error ? { error } : { fault };
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
