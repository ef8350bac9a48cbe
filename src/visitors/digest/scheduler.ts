import { Cron } from 'croner';
import { type DueDigestDeps, runDueDigests } from './send.js';

export interface DigestScheduler {
  /** Sends any digest missed while every instance was down, then checks every minute. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface DigestSchedulerOptions {
  /** Check this often (ms) instead of at every whole minute: tests run an accelerated clock through `deps.now`. */
  tickMs?: number;
}

/**
 * Every replica runs one; the claim per channel and period in `sendDigest` makes each digest go out once. Each tick
 * goes through the deps of every workspace the app serves (`workspaces`; the app's own by default).
 */
export function createDigestScheduler(
  deps: DueDigestDeps,
  options: DigestSchedulerOptions = {},
  workspaces: () => Promise<DueDigestDeps[]> = async () => [deps],
): DigestScheduler {
  let cron: Cron | undefined;
  let interval: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  const tick = async () => {
    if (running) return; // a slow tick is never overlapped by the next
    const failed = (error: unknown) => deps.log.error('visitors.digest_tick_failed', { error });
    const each = async () => {
      for (const scoped of await workspaces()) await runDueDigests(scoped).catch(failed);
    };
    running = each().catch(failed);
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
