import { z } from 'zod';

export interface FaultMatch {
  method?: string;
  /** Tested against the request path (without the query string). */
  path?: RegExp;
}

/** 5xx bursts, or 401/403 as when a key is revoked while the app runs. */
const FAULT_STATUSES = [401, 403, 500, 502, 503] as const;
export type FaultStatus = (typeof FAULT_STATUSES)[number];

/** `count` is how many matching requests get the fault; `Infinity` is allowed. */
export type Fault =
  | { kind: 'status'; status: FaultStatus; count: number; match?: FaultMatch }
  | { kind: 'slow'; delayMs: number; count: number; match?: FaultMatch }
  | { kind: 'rate-limit'; retryAfterSec: number; count: number; match?: FaultMatch }
  | { kind: 'reset'; count: number; match?: FaultMatch };

export class FaultQueue {
  #faults: { fault: Fault; remaining: number }[] = [];

  add(fault: Fault): void {
    if (fault.count > 0) this.#faults.push({ fault, remaining: fault.count });
  }

  clear(): void {
    this.#faults = [];
  }

  /** Consumes and returns the first fault that matches the request, if any. */
  take(method: string, path: string): Fault | undefined {
    const index = this.#faults.findIndex((entry) => matches(entry.fault.match, method, path));
    const entry = this.#faults[index];
    if (!entry) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.#faults.splice(index, 1);
    return entry.fault;
  }
}

function matches(match: FaultMatch | undefined, method: string, path: string): boolean {
  if (match?.method && match.method.toUpperCase() !== method.toUpperCase()) return false;
  if (match?.path) {
    match.path.lastIndex = 0; // a /g or /y regex keeps state between test() calls
    if (!match.path.test(path)) return false;
  }
  return true;
}

// JSON form used by `POST /__sim/faults`: `path` is a regex source and `count` may be "Infinity" (default 1).
const CountSchema = z
  .union([z.number().int().positive(), z.literal('Infinity')])
  .default(1)
  .transform((count) => (count === 'Infinity' ? Number.POSITIVE_INFINITY : count));
const MatchSchema = z
  .object({
    method: z.string().optional(),
    path: z
      .string()
      .refine(isRegex, 'path is not a valid regular expression')
      .transform((source) => new RegExp(source))
      .optional(),
  })
  .optional();
const FaultBodySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('status'), status: z.union(FAULT_STATUSES.map((s) => z.literal(s))) }),
  z.object({ kind: z.literal('slow'), delayMs: z.number().int().min(0) }),
  z.object({ kind: z.literal('rate-limit'), retryAfterSec: z.number().int().min(0) }),
  z.object({ kind: z.literal('reset') }),
]);

export function parseFaultBody(body: unknown): { fault: Fault } | { error: string } {
  const common = z.object({ count: CountSchema, match: MatchSchema }).safeParse(body);
  const specific = FaultBodySchema.safeParse(body);
  if (!common.success) return { error: z.prettifyError(common.error) };
  if (!specific.success) return { error: z.prettifyError(specific.error) };
  const { count, match } = common.data;
  return { fault: { ...specific.data, count, ...(match ? { match } : {}) } };
}

function isRegex(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}
