import { describe, expect, it } from 'vitest';
import { postedWords } from '../../../src/agent/posted-words.js';

describe('postedWords', () => {
  it('is the message’s text when it has some, whatever else it carries', () => {
    expect(postedWords({ text: 'Deploy &lt;prod&gt; done', blocks: [{ type: 'header', text: { text: 'x' } }] })).toBe(
      'Deploy &lt;prod&gt; done',
    );
  });

  it('reads an attachment’s pretext, linked title, text and fields, else its fallback', () => {
    const attachment = {
      pretext: 'Monitor triggered',
      title: 'Latency',
      title_link: 'https://uptime.example/1',
      text: 'p95 over 30 s',
      fields: [{ title: 'Region', value: 'eu' }, { value: 'no title' }],
    };
    expect(postedWords({ text: '', attachments: [attachment, { fallback: 'Only a fallback' }] })).toBe(
      'Monitor triggered\n<https://uptime.example/1|Latency>\np95 over 30 s\nRegion: eu\nno title\nOnly a fallback',
    );
  });

  it('reads blocks: a header, a section’s text and fields, a context, markdown, rich text with links and lists', () => {
    const blocks = [
      { type: 'header', text: { type: 'plain_text', text: 'Incident 42' } },
      { type: 'section', text: { type: 'mrkdwn', text: '*Sev 2*' }, fields: [{ type: 'mrkdwn', text: 'API' }] },
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'Opened by' }, { type: 'image' }, { text: 'PagerDuty' }] },
      { type: 'markdown', text: '**Runbook** first' },
      {
        type: 'rich_text',
        elements: [
          {
            type: 'rich_text_section',
            elements: [
              { type: 'text', text: 'See ' },
              { type: 'link', url: 'https://runbooks.example/42' },
            ],
          },
          {
            type: 'rich_text_list',
            elements: [
              { type: 'rich_text_section', elements: [{ type: 'text', text: 'one' }] },
              { type: 'rich_text_section', elements: [{ type: 'text', text: 'two' }] },
            ],
          },
        ],
      },
      { type: 'divider' },
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Ack' } }] },
    ];
    expect(postedWords({ blocks })).toBe(
      'Incident 42\n*Sev 2*\nAPI\nOpened by PagerDuty\n**Runbook** first\nSee <https://runbooks.example/42>\none\ntwo',
    );
  });

  it('is empty for a message without words, and for shapes it does not know', () => {
    expect(postedWords({})).toBe('');
    expect(postedWords(undefined)).toBe('');
    expect(postedWords({ text: 7, attachments: 'x', blocks: [null, 3, { type: 'section', text: 5 }] })).toBe('');
  });
});
