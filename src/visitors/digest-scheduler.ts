import { Cron } from 'croner';
import type { Deps } from '../deps.js';
import { runDueDigests } from './digest.js';

export interface DigestScheduler {
  /** Sends any digest missed while every instance was down, then checks every minute. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface DigestSchedulerOptions {
  /** Check this often (ms) instead of at every whole minute: tests run an accelerated clock through `deps.now`. */
  tickMs?: number;
}

/** Every replica runs one; the claim per channel and period in `sendDigest` makes each digest go out once. */
export function createDigestScheduler(deps: Deps, options: DigestSchedulerOptions = {}): DigestScheduler {
  let cron: Cron | undefined;
  let interval: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  const tick = async () => {
    if (running) return; // a slow tick is never overlapped by the next
    running = runDueDigests(deps).catch((error) => deps.log.error('visitors.digest_tick_failed', { error }));
    await running;
    running = undefined;
  };

  return {
    async start() {
      void tick(); // in the background: a slow service never delays start-up
      if (options.tickMs) interval = setInterval(() => void tick(), options.tickMs);
      else cron = new Cron('* * * * *', { timezone: 'UTC' }, () => void tick());
    },
    async stop() {
      cron?.stop();
      if (interval) clearInterval(interval);
      await running;
    },
  };
}
