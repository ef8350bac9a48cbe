import { describe, expect, it } from 'vitest';
import { weekFeedback } from '../../src/agent/index.js';
import { feedbackClick, type StoredMessage } from '../../tools/slack-standin/index.js';
import { homeOpened } from '../fixtures/conversation.js';
import { interaction, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { eventually, metricsUrlOf, TEST_PROJECT_ID } from '../support/test-app.js';

/** Jobs here end only when a test ends them. */
const LONG_JOB_MS = 60_000;
const BOB = 'U456BOB';
const PR = 'https://github.com/acme/docs/pull/42';

/** 👍/👎 under a job's result: recorded, counted, and 👎's "What went wrong?" sent to the job as a follow-up. */
describe.each(storeKinds)('feedback on what the agent did ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: LONG_JOB_MS }, boot: true });

  /** Starts a job, ends it with `prLink` (a PR, or none), and returns the outcome as Slack stored it. */
  async function finishedJob(prompt: string, prLink: string | null): Promise<StoredMessage & { rootTs: string }> {
    const { jobId, rootTs } = await h.startJob(prompt);
    h.sim.endJob(jobId, { status: 'completed', prLink });
    const outcome = await eventually(
      () =>
        h.slack.messages.find((m) => m.thread_ts === rootTs && JSON.stringify(m.blocks).includes('feedback_buttons')),
      5_000,
      'the outcome with its feedback buttons',
    );
    return { ...outcome, rootTs };
  }

  /** The person sends the modal the app opened with `text` in "What went wrong?". */
  function submitted(view: Record<string, unknown>, text: string, user = USER_ID) {
    const values = { what_went_wrong: { value: { type: 'plain_text_input', value: text } } };
    return {
      ...interaction('view_submission', 'trigger-submit'),
      user: { id: user, team_id: 'T1' },
      view: { ...view, id: `V${Math.random().toString(36).slice(2, 8)}`, hash: 'h1', state: { values } },
    };
  }

  const modal = () =>
    eventually(
      () => h.slack.views.find((v) => v.view.callback_id === 'agent.feedback_modal'),
      5_000,
      'the "What went wrong?" modal',
    );
  const scrape = async () => (await fetch(`${metricsUrlOf(h.app.app)}/metrics`)).text();
  const prompts = () => h.followUps().map((r) => (r.body as { prompt: string }).prompt);

  it('👎 opens "What went wrong?"; Send as follow-up gives the job the text as a reply would, ✅ on the result', async () => {
    const outcome = await finishedJob('Document the webhooks endpoint', PR);
    await h.interact(feedbackClick(h.slack, { user: USER_ID, message: outcome, choice: 'negative' }));
    const { view } = await modal();
    expect(view).toMatchObject({
      type: 'modal',
      title: { text: 'What went wrong?' },
      submit: { text: 'Send as follow-up' },
    });

    // An empty text keeps the form open with the field's error; nothing goes to the agent.
    const empty = await h.interact(submitted(view, '   '));
    expect(empty).toMatchObject({ response_action: 'errors', errors: { what_went_wrong: expect.any(String) } });
    expect(await h.interact(submitted(view, 'The page misses the retry headers'))).toBeUndefined();
    await eventually(() => prompts().length === 1, 5_000, 'the follow-up');
    expect(prompts()).toEqual(['The page misses the retry headers']);
    await eventually(
      () =>
        h.slack
          .callsTo('reactions.add')
          .some((c) => c.args.timestamp === outcome.ts && c.args.name === 'white_check_mark'),
      5_000,
      '✅ on the result',
    );
    expect(await weekFeedback(h.app.app.deps, TEST_PROJECT_ID)).toEqual({ up: 0, down: 1 });
    expect(await scrape()).toContain(`mintlify_slack_agent_feedback_total{project="${TEST_PROJECT_ID}",vote="down"} 1`);
  });

  it('someone who may not steer gets no vote and no form, and a follow-up they send from 👎 is refused, echoed', async () => {
    await h.restart({ env: { AGENT_ALLOWED_USERS: USER_ID } });
    const outcome = await finishedJob('Document the CLI', null);
    for (const choice of ['positive', 'negative'] as const) {
      const responseUrl = h.slack.responseUrl(`bob-${choice}`);
      await h.interact(feedbackClick(h.slack, { user: BOB, message: outcome, choice, responseUrl }));
      const note = await eventually(() => h.slack.callsTo(`response_url:bob-${choice}`)[0], 5_000, 'the note');
      expect(String(note.args.text)).toContain('you are not allowed to use the Mintlify agent here');
    }
    expect(h.slack.views.filter((v) => v.view.callback_id === 'agent.feedback_modal')).toEqual([]);
    expect(await weekFeedback(h.app.app.deps, TEST_PROJECT_ID)).toEqual({ up: 0, down: 0 });

    // The form as Alice opened it, sent by Bob.
    await h.interact(feedbackClick(h.slack, { user: USER_ID, message: outcome, choice: 'negative' }));
    const { view } = await modal();
    await h.interact(submitted(view, 'Cover the flags too', BOB));
    const refusal = await eventually(
      () => h.slack.callsTo('chat.postEphemeral').find((c) => c.args.user === BOB),
      5_000,
      'the refusal',
    );
    expect(String(refusal.args.text)).toContain('Cover the flags too');
    expect(prompts()).toEqual([]);
  });

  it('👍 is recorded once per person and round, counted in /metrics, and App Home shows the week’s ratio', async () => {
    const first = await finishedJob('Document the webhooks endpoint', PR);
    const second = await finishedJob('Document the CLI', null);
    await h.interact(feedbackClick(h.slack, { user: USER_ID, message: first, choice: 'positive' }));
    await h.interact(feedbackClick(h.slack, { user: USER_ID, message: first, choice: 'positive' }));
    await h.interact(feedbackClick(h.slack, { user: USER_ID, message: second, choice: 'positive' }));
    await h.interact(feedbackClick(h.slack, { user: BOB, message: second, choice: 'negative' }));
    // Each click is recorded after its ack: every one counted, the repeated 👍 once in the week's votes.
    const counted = (vote: string, n: number) =>
      `mintlify_slack_agent_feedback_total{project="${TEST_PROJECT_ID}",vote="${vote}"} ${n}`;
    await eventually(
      async () => {
        const text = await scrape();
        return text.includes(counted('up', 3)) && text.includes(counted('down', 1));
      },
      5_000,
      'the clicks counted',
    );
    expect(await weekFeedback(h.app.app.deps, TEST_PROJECT_ID)).toEqual({ up: 2, down: 1 });
    expect(prompts()).toEqual([]); // a vote alone sends the agent nothing

    await h.deliver(homeOpened(USER_ID, 'home'));
    const home = await eventually(
      () => h.slack.callsTo('views.publish').find((c) => JSON.stringify(c.args.view).includes('Feedback this week')),
      5_000,
      'App Home with the week’s feedback',
    );
    expect(JSON.stringify(home.args.view)).toContain(`${TEST_PROJECT_ID}\` · 👍 2 · 👎 1 · 67% positive`);
  });
});
