import { describe, expect, it } from 'vitest';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { eventually } from '../support/test-app.js';

const BOB = 'U456BOB';
/** Bidirectional controls, and control characters but tab and line feed. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const LYING = /[\u202A-\u202E\u2066-\u2069\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;
/** Every string in a Web API call's arguments (text, blocks, attachments). */
const textsOf = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(textsOf) : [];
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

  it('the instruction echoed on the root message cannot reorder itself or carry control characters', async () => {
    const typed = 'Rename \u202Etxt.exe\u202C and \u2067fix\u2069 the \u001B[31mbanner';
    const { rootTs } = await h.startJob(typed);
    const root = await eventually(() => h.slack.callsTo('chat.update').find((c) => c.args.ts === rootTs));
    const posted = h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === CHANNEL_ID);
    // What people read (the message metadata is the app's own record, never shown, and keeps what was typed).
    const said = [root, ...posted].flatMap(({ args: { metadata, ...shown } }) => textsOf(shown));
    expect(said.join('\n')).toContain('Rename \uFFFDtxt.exe\uFFFD and \uFFFDfix\uFFFD the \uFFFD[31mbanner');
    expect(said.filter((text) => LYING.test(text))).toEqual([]);
    // The agent still gets what was typed: only what people read is neutralised.
    expect(String((h.creates()[0]?.body as { prompt?: string } | undefined)?.prompt)).toContain(typed);
  });

  it('the quoted instruction on the root message never splits a flag', async () => {
    const { rootTs } = await h.startJob(`${'a'.repeat(598)}🇺🇸 and the rest`);
    const root = await eventually(() => h.slack.callsTo('chat.update').find((c) => c.args.ts === rootTs));
    const quoted = JSON.stringify(root.args.blocks);
    expect(quoted).toContain(`${'a'.repeat(598)}…`);
    expect(quoted).not.toContain('🇺…');
  });
});
