import { describe, expect, it } from 'vitest';
import { decodeSlackText, mentionedUsers } from '../../../src/slack/decode.js';

// Wire forms from Slack's formatting reference (https://api.slack.com/reference/surfaces/formatting).
describe('decodeSlackText', () => {
  const names = new Map([['U123ALICE', 'alice']]);

  it.each([
    ['Fix the &lt;Note&gt; callout &amp; link', 'Fix the <Note> callout & link'],
    ['Typed &amp;lt; literally', 'Typed &lt; literally'],
    ['&amp;amp;', '&amp;'],
    ['See <https://a.example|the guide>', 'See the guide (https://a.example)'],
    ['See <https://a.example/x?a=1&amp;b=2>', 'See https://a.example/x?a=1&b=2'],
    ['Typed a.example: <http://a.example|a.example>', 'Typed a.example: a.example'],
    ['<https://a.example/|https://a.example/>', 'https://a.example/'],
    ['Mail <mailto:ops@a.example|ops@a.example>', 'Mail ops@a.example'],
    ['Ask <@U123ALICE>', 'Ask @alice'],
    ['Ask <@U999ZED>', 'Ask @U999ZED'],
    ['Ask <@U999ZED|zed>', 'Ask @zed'],
    ['In <#C123DOCS|docs> and <#C456>', 'In #docs and #C456'],
    ['<!here> <!channel> <!everyone>', '@here @channel @everyone'],
    ['Tell <!subteam^S123|@docs-team>', 'Tell @docs-team'],
    ['Tell <!subteam^S123>', 'Tell @S123'],
    ['On <!date^1392734382^{date}|Feb 18, 2014>', 'On Feb 18, 2014'],
    ['A &lt;Tip&gt; with <https://a.example|a &amp; b>', 'A <Tip> with a & b (https://a.example)'],
    ['emoji :tada: and 🎉 stay', 'emoji :tada: and 🎉 stay'],
  ])('%j → %j', (wire, typed) => {
    expect(decodeSlackText(wire, names)).toBe(typed);
  });

  it('lists each mentioned person once', () => {
    expect(mentionedUsers('<@U1A> and <@W2B|b> and <@U1A> but not <#C1|c>')).toEqual(['U1A', 'W2B']);
  });
});
