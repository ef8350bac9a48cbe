import type { AgentJob, JobField, Operation } from './contract.js';

export interface FaultMatch {
  method?: string;
  /** Tested against the request path (without the query string). */
  path?: RegExp;
  /** One of the documented operations (`create`, `get`, `follow-up`, `visitors`). */
  operation?: Operation;
}

/** What the `job` switch may put in a job answer: documented values, except `status`, which may be any string. */
export type JobOverrides = Omit<AgentJob, 'status'> & { status?: string };

/** A job answer reshaped: fields kept, dropped or set, applied in that order. */
export interface JobShape {
  keep?: JobField[];
  omit?: JobField[];
  set?: JobOverrides;
  /** Only answers about a job whose own status is this one are reshaped (and counted). */
  whenStatus?: string;
}

/** The operations whose answer is a list of rows, and the field that holds it. */
export const ROW_LISTS = {
  visitors: 'visitors',
  feedback: 'feedback',
  'feedback-by-page': 'feedback',
  searches: 'searches',
  assistant: 'conversations',
} as const;
export type RowsOperation = keyof typeof ROW_LISTS;

/**
 * A list answer reshaped: `set` on each of the `first` rows (all when unset), `answer` on the answer itself. Every
 * pending `rows` switch of a request applies, in the order they were set.
 */
export interface RowsShape {
  /** Documented values only; a field is set only on rows that have it (a feedback entry's shape stays whole). */
  set?: Record<string, unknown>;
  first?: number;
  /** Top-level fields: `totals` (visitors), `totalSearches` (searches). */
  answer?: Record<string, unknown>;
}

/**
 * `count` is how many matching requests get the fault; `Infinity` is allowed. All but `slow`, `job`, `feedback`
 * and `rows` replace the answer; `slow` delays it; `job` reshapes a successful job answer (create, get, follow-up);
 * `feedback` writes each entry's path of a feedback answer as the page's URL ("the path or URL to the source
 * document", as the documents allow); `rows` sets documented values on a list answer's rows.
 */
export type Fault = { count: number; match?: FaultMatch } & (
  | { kind: 'status'; status: number; error?: string }
  | { kind: 'slow'; delayMs: number }
  /** Without `retryAfterSec`, no `Retry-After` (the documents give 429 none). */
  | { kind: 'rate-limit'; retryAfterSec?: number }
  | { kind: 'reset' }
  | { kind: 'not-json'; status: number; body: string; contentType: string }
  | ({ kind: 'job' } & JobShape)
  | { kind: 'feedback'; pathAs: 'url' }
  | ({ kind: 'rows' } & RowsShape)
);

/** The switches that reshape an answer rather than replace or delay it. */
export const reshapes = (fault: Fault) => fault.kind === 'job' || fault.kind === 'feedback' || fault.kind === 'rows';

export interface FaultTarget {
  method: string;
  path: string;
  operation: Operation | undefined;
}

export class FaultQueue {
  #faults: { fault: Fault; remaining: number }[] = [];

  add(fault: Fault): void {
    if (fault.count > 0) this.#faults.push({ fault, remaining: fault.count });
  }

  clear(): void {
    this.#faults = [];
  }

  /** Consumes and returns the first fault that matches the request (and `accept`, when given), if any. */
  take(target: FaultTarget, accept: (fault: Fault) => boolean = () => true): Fault | undefined {
    const index = this.#faults.findIndex(({ fault }) => matches(fault.match, target) && accept(fault));
    const entry = this.#faults[index];
    if (!entry) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.#faults.splice(index, 1);
    return entry.fault;
  }

  /** Consumes one use of every fault that matches the request and `accept`, in the order they were added. */
  takeAll(target: FaultTarget, accept: (fault: Fault) => boolean): Fault[] {
    const taken = this.#faults.filter(({ fault }) => matches(fault.match, target) && accept(fault));
    for (const entry of taken) entry.remaining -= 1;
    this.#faults = this.#faults.filter((entry) => entry.remaining > 0);
    return taken.map(({ fault }) => fault);
  }
}

function matches(match: FaultMatch | undefined, { method, path, operation }: FaultTarget): boolean {
  if (match?.method && match.method.toUpperCase() !== method.toUpperCase()) return false;
  if (match?.operation && match.operation !== operation) return false;
  if (match?.path) {
    match.path.lastIndex = 0; // a /g or /y regex keeps state between test() calls
    if (!match.path.test(path)) return false;
  }
  return true;
}

/** The job's answer after `shape`: a new object, the simulator's own record untouched. */
export function shapeJob(job: object, shape: JobShape): Record<string, unknown> {
  const { keep, omit = [], set } = shape;
  const fields = Object.entries(job).filter(
    ([key]) => (!keep || keep.includes(key as JobField)) && !omit.includes(key as JobField),
  );
  return { ...Object.fromEntries(fields), ...set };
}

/** A list answer after `shape` (see {@link RowsShape}): a new object. */
export function shapeRows(operation: RowsOperation, body: object, shape: RowsShape): object {
  const list = ROW_LISTS[operation];
  const rows = (body as Record<string, object[]>)[list] ?? [];
  const { set = {}, first = rows.length, answer } = shape;
  const shaped = rows.map((row, i) =>
    i < first ? { ...row, ...Object.fromEntries(Object.entries(set).filter(([key]) => key in row)) } : row,
  );
  return { ...body, ...answer, [list]: shaped };
}
