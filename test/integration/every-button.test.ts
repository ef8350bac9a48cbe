import { describe, expect, it } from 'vitest';
import { OPEN_PR_ACTION } from '../../src/agent/job-messages.js';
import { ACTION_IDS as INSIGHTS_ACTION_IDS } from '../../src/insights/blocks.js';
import { ACTION_IDS } from '../../src/visitors/blocks.js';
import { postInteraction } from '../fakes/signed-request.js';
import { buttonClick, buttonsIn, type RenderedButton } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { SLACK_ACK_MS } from '../support/steps.js';
import { eventually } from '../support/test-app.js';

/** What people read: where rendered buttons can be. */
const SHOWN = /^(chat\.(postMessage|update|postEphemeral)|response_url:.*)$/;

/**
 * Every button the bot renders, clicked as Slack would (link buttons included: Slack sends their clicks too),
 * through the real app over signed HTTP: each acknowledged at once, none left to Bolt's 404.
 */
describe('every button the bot renders', () => {
  const h = useHarness({ simulator: { jobDurationMs: 60_000, pathCount: 300 }, boot: true });

  /** Each distinct action_id rendered so far, with one message it was rendered on. */
  function rendered(): Map<string, { button: RenderedButton; blockId: string; method: string; ts?: string }> {
    const found = new Map<string, { button: RenderedButton; blockId: string; method: string; ts?: string }>();
    for (const call of h.slack.calls.filter((c) => SHOWN.test(c.method))) {
      for (const { button, blockId } of buttonsIn(call.args.blocks)) {
        if (button.action_id && !found.has(button.action_id)) {
          found.set(button.action_id, { button, blockId, method: call.method, ts: call.args.thread_ts as string });
        }
      }
    }
    return found;
  }

  /** Resolves once the app has sent nothing to Slack for a second (a chart takes a while to render). */
  async function settled(): Promise<void> {
    let seen = -1;
    await eventually(
      async () => {
        const now = h.slack.calls.length;
        const quiet = now === seen;
        seen = now;
        if (!quiet) await new Promise((resolve) => setTimeout(resolve, 1_000));
        return quiet;
      },
      20_000,
      'the app to finish what the clicks started',
    );
  }

  it('are all acknowledged when clicked, the pull request link button included', { timeout: 60_000 }, async () => {
    // An agent job that ends with a pull request: the outcome carries the "Open pull request" link button.
    const { jobId } = await h.startJob('Document webhooks');
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/42' });
    await eventually(() => rendered().has(OPEN_PR_ACTION), 5_000, 'the pull request outcome');

    // A /visitors report: its buttons, and the ones that appear after a click (Previous after Next).
    await h.command('/visitors 30d');
    await h.answer();
    // An /insights list: Draft a fix on each row (it opens a form), Next → under it.
    await h.command('/insights feedback 90d top 3');
    await h.answer();

    const clicked = new Set<string>();
    for (let round = 0; round < 5; round++) {
      const fresh = [...rendered()].filter(([id]) => !clicked.has(id));
      if (fresh.length === 0) break;
      for (const [id, { button, blockId, method }] of fresh) {
        clicked.add(id);
        const started = performance.now();
        const res = await postInteraction(
          h.app.url,
          buttonClick(button, {
            blockId,
            ephemeral: method.startsWith('response_url:'),
            responseUrl: h.slack.responseUrl(`click-${id}`),
          }),
        );
        expect(res.status, id).toBe(200);
        expect(performance.now() - started, id).toBeLessThan(SLACK_ACK_MS);
      }
      // What a click renders (the next page, a chart's note) may bring buttons not seen yet: wait until it is done.
      await settled();
    }

    // Every action the code can render was rendered and clicked; a new button without a listener fails here.
    expect([...clicked].sort()).toEqual(
      [OPEN_PR_ACTION, ...Object.values(ACTION_IDS), ...Object.values(INSIGHTS_ACTION_IDS)].sort(),
    );
    expect(h.app.logs()).not.toMatch(/not acknowledged|unhandled/i);
  });
});
