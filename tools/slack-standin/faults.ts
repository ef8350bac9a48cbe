import { ratelimited } from './http.js';
import { type Answer, type Args, refuse } from './methods/answer.js';

export type SlackFault =
  | { error: string }
  | { status: 429; retryAfterSec: number }
  | { status: 500 | 502 | 503; afterStoring?: boolean }
  /** Answers normally, this much later (longer than the client's timeout: a hung request). */
  | { delayMs: number }
  /** Stores the message, then runs `then` before answering (e.g. kills the caller between Slack's answer and its record). */
  | { storeThen: () => void | Promise<void> };

/** Faults armed by a test, each for a method, a number of calls, and optionally only calls `when` accepts. */
export class Faults {
  private readonly armed: {
    method: string;
    fault: SlackFault;
    remaining: number;
    when?: ((args: Args) => boolean) | undefined;
  }[] = [];

  add(method: string, fault: SlackFault, count: number, when?: (args: Args) => boolean): void {
    this.armed.push({ method, fault, remaining: count, when });
  }

  /** The fault the next call of `method` with `args` meets, if any (counted down). */
  take(method: string, args: Args): SlackFault | undefined {
    const armed = this.armed.find((f) => f.method === method && f.remaining > 0 && (f.when?.(args) ?? true));
    if (armed) armed.remaining -= 1;
    return armed?.fault;
  }

  clear(): void {
    this.armed.length = 0;
  }
}

/** Answers a call that meets `fault`; `answer` stores and answers it as usual (some faults do, then fail). */
export async function withFault(fault: SlackFault, answer: () => Answer): Promise<Answer> {
  if ('storeThen' in fault) {
    const answered = answer();
    await fault.storeThen();
    return answered;
  }
  if ('delayMs' in fault) {
    await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    return answer();
  }
  // Slack can store a message and still answer 5xx.
  if ('afterStoring' in fault && fault.afterStoring) answer();
  if ('error' in fault) return refuse(fault.error);
  if (fault.status === 429) return ratelimited(fault.retryAfterSec);
  return { status: fault.status, headers: {}, body: { ok: false, error: 'internal_error' } };
}
