import { describe, expect, it } from 'vitest';
import { unsafeBodies, wireProblems } from '../../support/wire-safety.js';

/** The check every integration suite's Slack bodies go through (test/support/wire-safety-setup.ts). */
describe('wire safety of what the app sends', () => {
  it.each([
    ['<!channel> now', 'raw broadcast <!channel>'],
    ['hi <!here>', 'raw broadcast <!here>'],
    ['<!everyone>', 'raw broadcast <!everyone>'],
    ['ping <!subteam^S123|@docs>', 'raw broadcast <!subteam^S123|@docs>'],
    ['Fix the <Note> callout', 'unescaped <Note>'],
    ['<javascript:alert(1)|click>', 'unescaped <javascript:alert(1)|click>'],
    ['<!date^1795341690^{time}>', 'unescaped <!date^1795341690^{time}>'],
    ['Fix the &amp;lt;Note&amp;gt;', 'escaped twice: &amp;lt;'],
  ])('flags %j', (text, problem) => {
    expect(wireProblems(text)).toContain(problem);
  });

  it.each([
    '<@U123ALICE> asked: &lt;Note&gt; &amp; @\u200Bchannel',
    'in <#C123DOCS> see <https://github.com/acme/docs/pull/1|PR #1> or <https://a.example/>',
    'The next slot opens in 2 minutes (<!date^1795341690^{time}|10:01 UTC>).',
  ])('accepts what the app writes on purpose: %j', (text) => {
    expect(wireProblems(text)).toEqual([]);
  });

  it('walks messages, updates, ephemerals, response_url bodies, streams and blocks, not metadata or reads', () => {
    const calls = [
      { method: 'chat.postMessage', args: { text: 'ok', blocks: [{ type: 'section', text: { text: '<!here>' } }] } },
      { method: 'chat.update', args: { text: '&amp;gt;' } },
      { method: 'response_url:r1', args: { text: '<b>' } },
      { method: 'chat.postEphemeral', args: { text: 'fine', metadata: { event_payload: { text: '<!channel>' } } } },
      { method: 'conversations.replies', args: { text: '<!channel>' } },
      { method: 'chat.startStream', args: { chunks: [{ type: 'markdown_text', text: 'Ping <!channel>' }] } },
      { method: 'chat.appendStream', args: { markdown_text: '<Note>' } },
      { method: 'chat.stopStream', args: { chunks: [{ type: 'task_update', id: 'a', title: '<!here>' }] } },
    ].map((c) => ({ ...c, at: 0 }));
    expect(unsafeBodies(calls)).toEqual([
      'chat.postMessage: raw broadcast <!here>',
      'chat.update: escaped twice: &amp;gt;',
      'response_url:r1: unescaped <b>',
      'chat.startStream: raw broadcast <!channel>',
      'chat.appendStream: unescaped <Note>',
      'chat.stopStream: raw broadcast <!here>',
    ]);
  });
});
