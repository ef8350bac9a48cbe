import { describe, expect, it } from 'vitest';
import { messageShortcut, viewSubmission } from '../fixtures/conversation.js';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { type Harness, useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually } from '../support/test-app.js';

const BOB = 'U456BOB';
const CAROL = 'U345CAROL';
const DM = 'D123ALICE';

/** The lines `user` says one after another, as `reply` takes them. */
const by = (user: string, ...texts: string[]): [string, string][] => texts.map((text) => [user, text]);

/** Who steers a job (docs/agent.md#who-steers-a-job), on every door that starts one, over signed HTTP and Socket Mode. */
function steeringSuite(h: Harness) {
  const prompts = () => h.followUps().map((r) => (r.body as { prompt: string }).prompt);
  const reacted = (ts: string) => h.slack.callsTo('reactions.add').filter((c) => c.args.timestamp === ts);
  /** Delivers each message in turn, then waits for `expected` follow-ups (and a moment for any more). */
  async function reply(threadTs: string, channel: string, lines: [string, string][], expected: string[]) {
    const said = [];
    for (const [user, text] of lines) {
      const message = h.say(user, channel, text, { threadTs });
      said.push(message);
      await h.deliver(message.events);
    }
    await eventually(() => prompts().length >= expected.length, 5_000, 'the follow-ups');
    await settle();
    expect(prompts()).toEqual(expected);
    return said;
  }

  it('in a discussion the job joined, only a mention steers it; thanks, an emoji and a side question do not', async () => {
    const root = h.say(BOB, CHANNEL_ID, 'The retry docs still say 5 tries');
    const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify document this', { threadTs: root.ts });
    await h.deliver(mention.events);
    await h.jobOf(CHANNEL_ID, root.ts);
    const said = await reply(
      root.ts,
      CHANNEL_ID,
      [
        [BOB, 'thanks!'],
        [BOB, ':tada:'],
        [CAROL, 'is the release on Friday?'],
        [BOB, '@Mintlify also cover the backoff'],
        [BOB, '@Mintlify :+1:'],
      ],
      ['also cover the backoff'],
    );
    for (const chatter of [...said.slice(0, 3), said[4]]) expect(reacted(chatter?.ts ?? '')).toEqual([]);
    expect(h.slack.callsTo('chat.postEphemeral')).toEqual([]);
  });

  it('in a discussion the job joined, its root and its outcome say to mention me, as only a mention steers it', async () => {
    const root = h.say(BOB, CHANNEL_ID, 'The retry docs still say 5 tries');
    await h.deliver(h.say(USER_ID, CHANNEL_ID, '@Mintlify document this', { threadTs: root.ts }).events);
    const { jobId } = await h.jobOf(CHANNEL_ID, root.ts);
    const working = await eventually(
      () => h.slack.callsTo('chat.update').find((c) => String(c.args.text).startsWith('Working')),
      5_000,
      'the root',
    );
    expect(JSON.stringify(working.args.blocks)).toContain(
      'Mention me in this thread to give the agent follow-up instructions',
    );
    h.sim.endJob(jobId, { status: 'failed' });
    const failed = await eventually(
      () => h.threadPosts(root.ts).find((c) => String(c.args.text).includes('job failed')),
      5_000,
      'the outcome',
    );
    expect(failed.args.text).toContain('Mention me in this thread with more detail');
    expect(JSON.stringify(h.threadPosts(root.ts))).not.toContain('Reply in this thread');
  });

  it('in the /agent root’s thread any reply with words steers the job; emoji and punctuation alone do not', async () => {
    const { rootTs } = await h.startJob('Document webhooks');
    const said = await reply(
      rootTs,
      CHANNEL_ID,
      [
        [BOB, ':tada: :+1::skin-tone-2:'],
        [BOB, '🎉 !!'],
        [USER_ID, 'Also the retry headers'],
      ],
      ['Also the retry headers'],
    );
    expect(reacted(said[0]?.ts ?? '')).toEqual([]);
    expect(reacted(said[1]?.ts ?? '')).toEqual([]);
  });

  it('in a DM’s thread and a top-level mention’s thread a reply steers the job', async () => {
    const dm = h.say(USER_ID, DM, 'Document the CLI');
    await h.deliver(dm.events);
    await h.jobOf(DM, dm.ts);
    await reply(dm.ts, DM, by(USER_ID, '👍', 'and its flags'), ['and its flags']);
    const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify document the SDK');
    await h.deliver(mention.events);
    await h.jobOf(CHANNEL_ID, mention.ts);
    await reply(mention.ts, CHANNEL_ID, by(BOB, 'and the errors page'), ['and its flags', 'and the errors page']);
  });

  it('an edit starts and steers nothing, even one that adds a mention (Slack sends app_mention again, edited)', async () => {
    const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify document the SDK');
    await h.deliver(mention.events);
    await h.jobOf(CHANNEL_ID, mention.ts);
    const aside = h.say(BOB, CHANNEL_ID, 'the SDK page is long');
    await h.deliver(aside.events);
    await h.deliver(h.slack.people.edits(BOB, CHANNEL_ID, aside.ts, '@Mintlify document the CLI too').events);
    const inThread = h.say(CAROL, CHANNEL_ID, '👍', { threadTs: mention.ts });
    await h.deliver(inThread.events);
    const edit = h.slack.people.edits(CAROL, CHANNEL_ID, inThread.ts, '@Mintlify and the errors page');
    expect(edit.events.map((e) => e.event.type)).toEqual(['message', 'app_mention']);
    await h.deliver(edit.events);
    await settle(500);
    expect(h.creates()).toHaveLength(1);
    expect(prompts()).toEqual([]);
  });

  it('in the shortcut’s thread a reply steers the job', async () => {
    const message = h.say(BOB, CHANNEL_ID, 'The SDK page is outdated');
    await h.interact(messageShortcut({ ts: message.ts, text: message.text, user: BOB }));
    const opened = await eventually(() => h.slack.callsTo('views.open')[0], 5_000, 'views.open');
    await h.interact(viewSubmission(opened.args.view as Record<string, unknown>, 'Update the SDK page'));
    await h.jobOf(CHANNEL_ID, message.ts);
    await reply(message.ts, CHANNEL_ID, by(BOB, ':eyes:', 'and the changelog'), ['and the changelog']);
  });

  it('the shortcut on a reply inside a discussion joins it: only a mention steers the job there', async () => {
    const root = h.say(BOB, CHANNEL_ID, 'Docs question about the SDK');
    const inside = h.say(BOB, CHANNEL_ID, 'The SDK page is outdated', { threadTs: root.ts });
    await h.interact(messageShortcut({ ts: inside.ts, text: inside.text, user: BOB, thread_ts: root.ts }));
    const opened = await eventually(() => h.slack.callsTo('views.open')[0], 5_000, 'views.open');
    await h.interact(viewSubmission(opened.args.view as Record<string, unknown>, 'Update the SDK page'));
    await h.jobOf(CHANNEL_ID, root.ts);
    const lines = [...by(CAROL, 'Bob, did you also check the CLI page?'), ...by(BOB, '@Mintlify and the CLI page')];
    await reply(root.ts, CHANNEL_ID, lines, ['and the CLI page']);
  });
}

describe.each(storeKinds)('who steers a job, over signed HTTP ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: 60_000 }, boot: true });
  steeringSuite(h);
});

describe('who steers a job, over Socket Mode', () => {
  const h = useHarness({ simulator: { jobDurationMs: 60_000 }, slack: { socketMode: true }, boot: true });
  steeringSuite(h);
});

describe.each(storeKinds)('AGENT_FOLLOW_UPS=mention ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: 60_000 }, env: { AGENT_FOLLOW_UPS: 'mention' } });
  const prompts = () => h.followUps().map((r) => (r.body as { prompt: string }).prompt);

  it('a reply steers no job, in the /agent root’s thread or a DM’s; a mention does', async () => {
    await h.boot();
    const { rootTs } = await h.startJob('Document webhooks');
    await h.deliver(h.say(BOB, CHANNEL_ID, 'Also the retry headers', { threadTs: rootTs }).events);
    const dm = h.say(USER_ID, DM, 'Document the CLI');
    await h.deliver(dm.events);
    await h.jobOf(DM, dm.ts);
    await h.deliver(h.say(USER_ID, DM, 'and its flags', { threadTs: dm.ts }).events);
    await h.deliver(h.say(USER_ID, DM, '@Mintlify and its exit codes', { threadTs: dm.ts }).events);
    await h.deliver(h.say(BOB, CHANNEL_ID, '@Mintlify and the signatures', { threadTs: rootTs }).events);
    await eventually(() => prompts().length >= 2, 5_000, 'the follow-ups');
    await settle();
    expect(prompts().sort()).toEqual(['and its exit codes', 'and the signatures']);
  });
});
