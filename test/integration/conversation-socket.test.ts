import { describe, expect, it } from 'vitest';
import { homeOpened, messageShortcut, viewSubmission } from '../fixtures/conversation.js';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { ackedInTime, SLACK_ACK_MS, settle } from '../support/steps.js';
import { eventually } from '../support/test-app.js';

const BOB = 'U456BOB';

/** The conversational doors in Socket Mode (the manifest's default), against the stand-in's Socket Mode server. */
describe.each(storeKinds)('conversations over Socket Mode ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: 60_000 }, slack: { socketMode: true }, boot: true });

  it('a mention starts one job in its thread; both events and their redeliveries are acked in time', async () => {
    const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify document the <Steps> component & its props');
    await h.deliver(mention.events);
    await h.jobOf(CHANNEL_ID, mention.ts);
    await h.deliver(mention.events, { retry: 1 });
    await settle();
    expect(h.creates().map((r) => r.body)).toEqual([{ prompt: 'document the <Steps> component & its props' }]);
  });

  it('a mention in a job’s thread is one follow-up, with both events delivered and redelivered', async () => {
    const start = h.say(USER_ID, CHANNEL_ID, '@Mintlify document webhooks');
    await h.deliver(start.events);
    await h.jobOf(CHANNEL_ID, start.ts);
    const more = h.say(BOB, CHANNEL_ID, '@Mintlify also the retry headers', { threadTs: start.ts });
    await h.deliver(more.events);
    await eventually(() => h.followUps().length, 5_000, 'the follow-up');
    await h.deliver(more.events, { retry: 1 });
    await settle();
    expect(h.followUps().map((r) => r.body)).toEqual([{ prompt: 'also the retry headers' }]);
    expect(h.creates()).toHaveLength(1);
  });

  it('the shortcut opens its modal within 3 s of the trigger, and its submission starts the job', async () => {
    const message = h.say(BOB, CHANNEL_ID, 'The SDK page is outdated');
    const shortcut = ackedInTime(
      await h.socket.interaction(messageShortcut({ ts: message.ts, text: message.text, user: BOB })),
    );
    const opened = await eventually(() => h.slack.callsTo('views.open')[0], 5_000, 'views.open');
    expect(opened.at - shortcut.sentAt).toBeLessThan(SLACK_ACK_MS);
    const view = opened.args.view as Record<string, unknown>;
    const empty = ackedInTime(await h.socket.interaction(viewSubmission(view, '')));
    expect(empty.ackPayload).toMatchObject({ response_action: 'errors', errors: { instruction: expect.any(String) } });
    ackedInTime(await h.socket.interaction(viewSubmission(view, 'Update the SDK page')));
    await h.jobOf(CHANNEL_ID, message.ts);
    expect(h.creates()[0]?.body).toEqual({ prompt: expect.stringMatching(/^Update the SDK page\n\nSlack message/) });
  });

  it('a DM starts a job and App Home lists it for its owner only', async () => {
    const dm = h.say(USER_ID, 'D123ALICE', 'Document the CLI');
    await h.deliver(dm.events);
    await h.jobOf('D123ALICE', dm.ts);
    await h.deliver([homeOpened(USER_ID, 'home'), homeOpened(BOB, 'home')]);
    const home = (user: string) =>
      JSON.stringify(h.slack.callsTo('views.publish').find((c) => c.args.user_id === user)?.args.view ?? '');
    await eventually(() => home(USER_ID).includes('Document the CLI') && home(BOB).includes('not started a job'));
    expect(home(BOB)).not.toContain('Document the CLI');
  });
});
