import { describe, expect, it } from 'vitest';
import { BOT_USER_ID } from '../fakes/fake-slack-api.js';
import { CHANNEL_ID, threadReply, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually } from '../support/test-app.js';

// A person pastes an admin key or a Slack token into what they ask the agent. `/agent` is private, but the job's
// root message quotes the instruction in the channel, its agent session is titled after it, and the agent could
// write it into a pull request: nothing holding one is sent or posted, and the answer shows it masked.

const ADMIN_KEY = 'mint_live4f1c2d9e8b7aQxyz0123';
const BOT_TOKEN = 'xoxb-2004-7723-Kq9sYc4Jm2Lp8Zx0Wv3Tb6Nr';

describe.each(storeKinds)('a key typed to the agent ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: 60_000 }, boot: true });

  /** Every body the app sent Slack and Mintlify, and its log: none may hold `secret`. */
  const leaks = (secret: string) =>
    [JSON.stringify(h.slack.calls), JSON.stringify(h.sim.requests), h.app.logs()].filter((seen) =>
      seen.includes(secret),
    ).length;

  it('/agent with an admin key: nothing posted or sent, the private answer says why and masks it', async () => {
    const typed = `Document the API, use ${ADMIN_KEY} to try it`;
    await h.command(`/agent ${typed}`);
    const answer = await h.answer();
    expect(answer.args.response_type).toBe('ephemeral');
    expect(answer.args.text).toContain('looks like a Mintlify admin key or a Slack token');
    expect(answer.args.text).toContain('>Document the API, use mint_… to try it');
    await settle();
    expect(h.creates()).toHaveLength(0);
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
    expect(leaks(ADMIN_KEY)).toBe(0);
  });

  it('a mention with a Slack token starts nothing and is answered privately, masked', async () => {
    const mention = h.say(USER_ID, CHANNEL_ID, `@Mintlify document the bot token ${BOT_TOKEN}`);
    await h.deliver(mention.events);
    const [eph] = await eventually(
      () => h.slack.callsTo('chat.postEphemeral').length && h.slack.callsTo('chat.postEphemeral'),
    );
    expect(eph?.args.text).toContain('looks like a Mintlify admin key or a Slack token');
    expect(eph?.args.text).toContain('document the bot token xoxb-…');
    await settle();
    expect(h.creates()).toHaveLength(0);
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
    // The person's own message holds it (Slack stores what they typed); the app's calls and its log do not.
    expect(leaks(BOT_TOKEN)).toBe(0);
  });

  it('a thread reply with an admin key is not passed on: ❌ and a private answer, masked', async () => {
    const { rootTs } = await h.startJob('Document the webhooks endpoint');
    await h.deliver(threadReply(rootTs, { text: `<@${BOT_USER_ID}> the key is ${ADMIN_KEY}` }));
    const eph = await eventually(() => h.slack.callsTo('chat.postEphemeral')[0], 5_000, 'the private answer');
    expect(h.slack.callsTo('reactions.add').map((c) => c.args.name)).toContain('x');
    expect(eph?.args.text).toContain('looks like a Mintlify admin key or a Slack token');
    expect(eph?.args.text).toContain('the key is mint_…');
    expect(h.followUps()).toHaveLength(0);
    expect(leaks(ADMIN_KEY)).toBe(0);
  });
});
