import { describe, expect, it } from 'vitest';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { eventually } from '../support/test-app.js';

const BOB = 'U456BOB';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe.each(storeKinds)('text is shortened between graphemes ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: 60_000 }, boot: true });

  it('the thread context sent to the agent never carries half an emoji', async () => {
    const root = h.say(BOB, CHANNEL_ID, 'Launch notes');
    h.say(BOB, CHANNEL_ID, `x${'😀'.repeat(8_100)}`, { threadTs: root.ts });
    const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify summarise the reactions', { threadTs: root.ts });
    await h.deliver(mention.events);
    await h.jobOf(CHANNEL_ID, root.ts);
    const prompt = String((h.creates()[0]?.body as { prompt?: string } | undefined)?.prompt);
    expect(prompt).toContain('…😀');
    expect(prompt).not.toMatch(LONE_SURROGATE);
  });

  it('the quoted instruction on the root message never splits a flag', async () => {
    const { rootTs } = await h.startJob(`${'a'.repeat(598)}🇺🇸 and the rest`);
    const root = await eventually(() => h.slack.callsTo('chat.update').find((c) => c.args.ts === rootTs));
    const quoted = JSON.stringify(root.args.blocks);
    expect(quoted).toContain(`${'a'.repeat(598)}…`);
    expect(quoted).not.toContain('🇺…');
  });
});
