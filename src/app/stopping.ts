import { setTimeout as delay } from 'node:timers/promises';
import type { CloseReport, Engine, UnstartedJob } from '../queue/engine.js';
import type { Store } from '../store/store.js';

/**
 * How long a graceful stop may take in all, shared by every drain: stop receiving, let running work finish (or
 * hand it back, or answer it), close. Shorter than Docker's 10 s (`docker stop -t`) and Kubernetes' 30 s
 * (`terminationGracePeriodSeconds`) before SIGKILL; index.ts exits at STOP_DEADLINE_MS + 1 s whatever is open.
 */
export const STOP_DEADLINE_MS = 8_000;
/** Of the deadline, what handing running work back and closing connections keep for themselves. */
const CLOSE_RESERVE_MS = 2_000;
/** Receivers stop taking requests within this long (a connection Slack keeps open must not eat the deadline). */
const RECEIVERS_STOP_MS = 1_000;

/** Waits for `work`, but not past `deadline` (epoch ms): what is still open then is left to the process's exit. */
export async function until(deadline: number, work: Promise<unknown> | undefined): Promise<void> {
  const stop = new AbortController();
  const late = delay(Math.max(0, deadline - Date.now()), undefined, { signal: stop.signal, ref: false });
  // its caller awaits the work itself for its outcome; here only the deadline matters.
  await Promise.race([Promise.resolve(work).catch(() => {}), late.catch(() => {})]);
  stop.abort();
}

/** What a start opened, in the order it is closed. */
export interface Opened {
  /** Timers (health, data-loss and install checks). */
  timers: { stop(): void }[];
  /** Slack's doors and the probes' port: no new requests. */
  receivers: ({ stop(): Promise<void> } | undefined)[];
  engine: Engine;
  store: Store;
  /** Told of the handed-on work that never started and ends with the process (the in-process queue). */
  unstarted?: (jobs: readonly UnstartedJob[]) => Promise<void>;
}

/**
 * Closes everything a start opened within one `deadline`: receivers first, then the engine (running jobs get until
 * the deadline less what handing back and closing need), then the store. No step waits past the deadline.
 */
export async function closeWithin(opened: Opened, deadline: number): Promise<void> {
  for (const timer of opened.timers) timer.stop();
  const receiving = Promise.all(opened.receivers.map((receiver) => receiver?.stop()));
  await until(Math.min(deadline, Date.now() + RECEIVERS_STOP_MS), receiving);
  const workMs = Math.max(0, deadline - CLOSE_RESERVE_MS - Date.now());
  let report: CloseReport | undefined;
  await until(
    deadline,
    opened.engine.close(workMs).then((closed) => {
      report = closed;
    }),
  );
  if (report?.unstarted.length) await until(deadline, opened.unstarted?.(report.unstarted));
  await until(deadline, opened.store.close());
}
