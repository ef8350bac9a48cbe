import { describe, expect, it } from 'vitest';
import { weekFeedback } from '../../src/agent/index.js';
import { draftButton } from '../../src/insights/index.js';
import { feedbackClick } from '../../tools/slack-standin/index.js';
import { messageShortcut, viewSubmission } from '../fixtures/conversation.js';
import { buttonClick, interaction, type RenderedButton, USER_ID } from '../fixtures/slack.js';
import { type Harness, useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';

/** #partners is shared through Slack Connect with Initech, whose Dave is a member of another organisation. */
const PARTNERS = 'C456PARTNERS';
const DAVE = 'U9DAVE';
const GUS_GUEST = 'U678GUS';
const INITECH = 'T9INITECH';

const ephemeralsTo = (h: Harness, user: string) =>
  h.slack.callsTo('chat.postEphemeral').filter((c) => c.args.user === user);

function refusalsSuite(h: Harness, env: Record<string, string> = {}) {
  const ephemerals = () => h.slack.callsTo('chat.postEphemeral');

  it('a person of another organisation can neither start a job nor steer one, and is told privately with their text', async () => {
    await h.boot({ env });
    const asked = h.slack.people.says(DAVE, PARTNERS, '@Mintlify document our <webhooks> API');
    await h.deliver(asked.events);
    const note = await eventually(() => ephemerals()[0], 5_000, 'the private note');
    expect(note.args.user).toBe(DAVE);
    expect(String(note.args.text)).toContain('you are from another organisation');
    expect(String(note.args.text)).toContain('>document our &lt;webhooks&gt; API');

    const started = h.slack.people.says(USER_ID, PARTNERS, '@Mintlify document the partner API');
    await h.deliver(started.events);
    await h.jobOf(PARTNERS, started.ts);
    const steer = h.slack.people.says(DAVE, PARTNERS, 'and delete the pricing page', { threadTs: started.ts });
    await h.deliver(steer.events);
    await eventually(() => ephemerals().length === 2, 5_000, 'the second note');
    expect(String(ephemerals()[1]?.args.text)).toContain('>and delete the pricing page');
    await settle();
    expect(h.creates()).toHaveLength(1);
    expect(h.followUps()).toHaveLength(0);
  });
}

describe.each(storeKinds)('Slack Connect, over signed HTTP ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: 60_000 } });
  refusalsSuite(h);

  // Slack's agent_session_stopped names the person but not their team: the app asks Slack whose they are.
  it('a person of another organisation cannot press Stop on a job: told privately, the job goes on', async () => {
    h.slack.view = 'agent_view';
    await h.boot();
    const { jobId, rootTs } = await h.startJob('Document the partner API', { channel: PARTNERS });
    const session = () => h.slack.tenant().agentSession(PARTNERS, rootTs)?.status;
    await eventually(() => session() === 'processing', 5_000, 'the session processing');
    await h.deliver(h.slack.people.stopsSession(DAVE, PARTNERS, rootTs));
    const note = await eventually(() => ephemeralsTo(h, DAVE)[0], 5_000, 'the private note');
    expect(String(note.args.text)).toContain('you are from another organisation');
    await settle();
    expect(h.followUps()).toHaveLength(0);
    expect(session()).toBe('processing');
    expect((await h.jobOf(PARTNERS, rootTs)).jobId).toBe(jobId);
    expect((await h.app.app.deps.store.jobs.get({ project: TEST_PROJECT_ID, jobId }))?.ended).toBeNull();
  });

  it('a person of another organisation pressing Draft a fix hears why, as /agent tells them', async () => {
    await h.boot();
    // The button as a docs link's Update this page or an insights digest's row carries it in #partners.
    const evidence = { kind: 'page', project: TEST_PROJECT_ID, from: '2026-11-16', to: '2026-11-22' } as const;
    const button = draftButton({ ...evidence, path: '/quickstart', thumbsDown: 2, thumbsUp: 1, comments: [] });
    const click = buttonClick(button as RenderedButton, { channel: PARTNERS });
    await h.interact({ ...click, user: { id: DAVE, username: 'dave', team_id: INITECH }, channel: { id: PARTNERS } });
    const opened = await eventually(() => h.slack.callsTo('views.open')[0], 5_000, 'the notice');
    const shown = JSON.stringify(opened.args.view);
    expect(shown).toContain('you are from another organisation');
    expect(shown).not.toContain('Ask your workspace admin to add you or this channel');
    expect(h.creates()).toHaveLength(0);
  });

  it('a person of another organisation can neither vote on a result nor send 👎’s form to the job: told why', async () => {
    await h.boot();
    const { jobId, rootTs } = await h.startJob('Document the partner API', { channel: PARTNERS });
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/42' });
    const outcome = await eventually(
      () =>
        h.slack.messages.find((m) => m.thread_ts === rootTs && JSON.stringify(m.blocks).includes('feedback_buttons')),
      5_000,
      'the outcome with its feedback buttons',
    );
    const forms = () => h.slack.views.filter((v) => v.view.callback_id === 'agent.feedback_modal');
    for (const choice of ['positive', 'negative'] as const) {
      const responseUrl = h.slack.responseUrl(`dave-${choice}`);
      await h.interact(feedbackClick(h.slack, { user: DAVE, message: outcome, choice, responseUrl }));
      const note = await eventually(() => h.slack.callsTo(`response_url:dave-${choice}`)[0], 5_000, 'the note');
      expect(String(note.args.text)).toContain('you are from another organisation');
    }
    expect(forms()).toEqual([]);
    expect(await weekFeedback(h.app.app.deps, TEST_PROJECT_ID)).toEqual({ up: 0, down: 0 });

    // The form itself (Alice's, as Dave might send one opened another way) hands the job nothing from them either.
    await h.interact(feedbackClick(h.slack, { user: USER_ID, message: outcome, choice: 'negative' }));
    const { view } = await eventually(() => forms()[0], 5_000, 'Alice’s form');
    const values = { what_went_wrong: { value: { type: 'plain_text_input', value: 'and delete the pricing page' } } };
    await h.interact({
      ...interaction('view_submission'),
      user: { id: DAVE, username: 'dave', team_id: INITECH },
      view: { ...view, id: 'VDAVE1', hash: 'h1', state: { values } },
    });
    const refusal = await eventually(() => ephemeralsTo(h, DAVE)[0], 5_000, 'the refusal');
    expect(String(refusal.args.text)).toContain('you are from another organisation');
    expect(String(refusal.args.text)).toContain('>and delete the pricing page');
    await settle();
    expect(h.followUps()).toHaveLength(0);
  });

  it('a person of another organisation running the message shortcut, or sending its form or Draft a fix’s, hears why', async () => {
    await h.boot();
    const dave = { id: DAVE, username: 'dave', team_id: INITECH };
    const partners = { id: PARTNERS, name: 'partners' };
    const shortcut = messageShortcut({ ts: '1700000000.000100', text: 'fix the retry page', user: 'U456BOB' });
    await h.interact({ ...shortcut, channel: partners, user: dave });
    const opened = (n: number) => eventually(() => h.slack.callsTo('views.open')[n], 5_000, `views.open #${n}`);
    const notice = JSON.stringify((await opened(0)).args.view);
    expect(notice).toContain('you are from another organisation');
    expect(notice).not.toContain('Ask your workspace admin to add you or this channel');

    // The forms as Alice opened them in #partners, sent by Dave.
    await h.interact({ ...shortcut, channel: partners });
    const evidence = { kind: 'page', project: TEST_PROJECT_ID, from: '2026-11-16', to: '2026-11-22' } as const;
    const button = draftButton({ ...evidence, path: '/quickstart', thumbsDown: 2, thumbsUp: 1, comments: [] });
    await h.interact({ ...buttonClick(button as RenderedButton, { channel: PARTNERS }), channel: { id: PARTNERS } });
    for (const form of [await opened(1), await opened(2)]) {
      const view = form.args.view as Record<string, unknown>;
      const ack = await h.interact({ ...viewSubmission(view, 'delete the pricing page'), user: dave });
      expect(JSON.stringify(ack)).toContain('you are from another organisation');
    }
    await settle();
    expect(h.creates()).toHaveLength(0);
  });

  it('with AGENT_ALLOW_EXTERNAL=true, they start and steer jobs; a guest follows the allow-lists like a member', async () => {
    await h.boot({ env: { AGENT_ALLOW_EXTERNAL: 'true' } });
    const asked = h.slack.people.says(DAVE, PARTNERS, '@Mintlify document our webhooks API');
    await h.deliver(asked.events);
    await h.jobOf(PARTNERS, asked.ts);
    await h.deliver(h.slack.people.says(DAVE, PARTNERS, 'and the retries', { threadTs: asked.ts }).events);
    await h.deliver(h.slack.people.says(GUS_GUEST, PARTNERS, '@Mintlify document the SLA').events);
    await eventually(() => h.followUps().length === 1 && h.creates().length === 2, 5_000, 'the job and follow-up');
    expect(h.slack.callsTo('chat.postEphemeral')).toEqual([]);
  });

  it('a plan card streamed for a person of another organisation names their team, as chat.startStream asks', async () => {
    await h.boot({ env: { AGENT_ALLOW_EXTERNAL: 'true', SLACK_PLAN_CARD: '' } });
    await h.command('/agent document our webhooks API', { user: DAVE, channel: PARTNERS });
    const started = await eventually(() => h.slack.callsTo('chat.startStream')[0], 5_000, 'the stream');
    expect(started.args).toMatchObject({ channel: PARTNERS, recipient_user_id: DAVE, recipient_team_id: INITECH });
    await eventually(() => h.creates().length === 1, 5_000, 'the job');
  });
});

describe('Slack Connect, over Socket Mode', () => {
  const h = useHarness({ simulator: { jobDurationMs: 60_000 }, slack: { socketMode: true } });
  refusalsSuite(h);
});
