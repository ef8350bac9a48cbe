import { describe, expect, it } from 'vitest';
import { decodeSlackText } from '../../src/slack/decode.js';
import { defaultWorkspace, messageWire, slashCommandWire } from '../../tools/slack-standin/index.js';

const ws = defaultWorkspace();

/** What a person types → what Slack sends (formatting reference, "Retrieving messages"). */
describe('Slack wire encoding in the stand-in', () => {
  it.each([
    ['Fix the <Note> callout & link', 'Fix the &lt;Note&gt; callout &amp; link'],
    ['@channel <!here> https://a.example', '@channel &lt;!here&gt; https://a.example'],
  ])('a slash command escapes & < > and nothing else: %s', (typed, wire) => {
    expect(slashCommandWire(typed)).toBe(wire);
  });

  it.each([
    ['Also <Tip> & that', 'Also &lt;Tip&gt; &amp; that'],
    ['see https://a.example/x?a=1&b=2.', 'see <https://a.example/x?a=1&amp;b=2>.'],
    ['see [the docs](https://docs.example/a) now', 'see <https://docs.example/a|the docs> now'],
    ['ask @bob and @Bob Lee', 'ask <@U456BOB> and <@U456BOB> Lee'],
    ['ask @nobody', 'ask @nobody'],
    ['in #docs and #nowhere', 'in <#C123DOCS|docs> and #nowhere'],
    ['@here @channel @everyone', '<!here> <!channel> <!everyone>'],
    ['ping @docs-team', 'ping <!subteam^S123DOCS|@docs-team>'],
    ['mail a@b.example', 'mail a@b.example'],
  ])('a message: %s', (typed, wire) => {
    expect(messageWire(typed, ws)).toBe(wire);
  });

  it('round-trips through the app’s decoder to what was typed, people by display name', () => {
    const typed = 'Also <Tip> & [a](https://a.example) for @bob in #docs, @here';
    expect(decodeSlackText(messageWire(typed, ws), new Map([['U456BOB', 'Bob Lee']]))).toBe(
      'Also <Tip> & a (https://a.example) for @Bob Lee in #docs, @here',
    );
  });
});
