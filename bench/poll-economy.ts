/** Benchmark 3: polls per job over a 30-minute job, from nextPollInterval alone (pure simulation). */
import { BACKOFF_FACTOR, nextPollInterval } from '../src/agent/tracking/backoff.js';
import { DEFAULT_POLL_INTERVAL_MS, DEFAULT_POLL_MAX_INTERVAL_MS } from '../src/config/config.js';
import { round } from './lib/stats.js';

export const JOB_MS = 30 * 60_000;
export const PAIRS: [number, number][] = [
  [DEFAULT_POLL_INTERVAL_MS, DEFAULT_POLL_MAX_INTERVAL_MS],
  [1_000, 5_000],
  [2_000, 30_000],
  [5_000, 30_000],
  [5_000, 120_000],
  [10_000, 300_000],
];

export interface PollEconomyRow {
  minMs: number;
  maxMs: number;
  /** Polls from tracking start until (and including) the one that sees the job ended at 30 min. */
  pollsPerJob: number;
  /** Interval in effect when the job ends. */
  intervalAtEndMs: number;
  /** Mean detection delay for an end at a random moment in that interval: half of it. */
  expectedDelayMs: number;
  /** This simulation's exact delay for an end at exactly 30:00. */
  delayAt30MinMs: number;
  /** Time until the interval reaches its maximum. */
  rampMs: number;
}

export function pollEconomy(minMs: number, maxMs: number, jobMs = JOB_MS): PollEconomyRow {
  let t = 0;
  let interval = minMs;
  let polls = 0;
  let rampMs = 0;
  // The poller polls at t = min, then min + next, …; a poll at or after jobMs sees the outcome.
  for (;;) {
    t += interval;
    polls++;
    if (t >= jobMs) break;
    const next = nextPollInterval(interval, false, minMs, maxMs);
    if (next === maxMs && rampMs === 0) rampMs = t;
    interval = next;
  }
  return {
    minMs,
    maxMs,
    pollsPerJob: polls,
    intervalAtEndMs: interval,
    expectedDelayMs: interval / 2,
    delayAt30MinMs: t - jobMs,
    rampMs,
  };
}

export function runPollEconomy() {
  return { backoffFactor: BACKOFF_FACTOR, jobMinutes: JOB_MS / 60_000, rows: PAIRS.map(([a, b]) => pollEconomy(a, b)) };
}

export const fmtS = (ms: number) => `${round(ms / 1000, 1)} s`;
