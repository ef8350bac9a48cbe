import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.js';
import { memoryStore } from '../support/redis.js';
import { eventually } from '../support/test-app.js';
import { LONG_JOB_MS } from './support.js';

/** The agent lane works 8 at once (src/lanes.ts): the 9th and 10th commands wait behind slow creates. */
const COMMANDS = 10;
const RUNNING = 8;

/**
 * Issue 20, defect 8: with the in-process queue (no Redis), commands acknowledged but still waiting when the app
 * stops were dropped with a log line; their people heard nothing. (On Redis they stay queued: the engine contract.)
 */
describe('a graceful stop with acknowledged commands still waiting (memory store)', () => {
  const h = useHarness({ store: memoryStore, simulator: { jobDurationMs: LONG_JOB_MS }, boot: true });

  it('finishes the running ones and tells each waiting person it restarted, with their text to run again', async () => {
    h.sim.injectFault({ kind: 'slow', delayMs: 700, count: Infinity, match: { operation: 'create' } });
    for (let i = 0; i < COMMANDS; i++) {
      await h.command(`/agent Document feature ${i}`, { responseId: `cmd${i}` });
    }
    await eventually(() => h.sim.requests.length >= RUNNING, 5_000, 'the first creates under way');

    await h.app.stop();

    expect(h.creates()).toHaveLength(RUNNING);
    const answered = Array.from({ length: COMMANDS }, (_, i) => i).filter((i) => h.answers(`cmd${i}`).length > 0);
    expect(answered).toEqual([8, 9]);
    for (const i of answered) {
      const [reply] = h.answers(`cmd${i}`);
      expect(reply?.args.response_type).toBe('ephemeral');
      expect(reply?.args.text).toContain('restarting');
      expect(reply?.args.text).toContain(`>Document feature ${i}`);
    }
  });
});
