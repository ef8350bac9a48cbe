import { describe, expect, it } from 'vitest';
import { contextOf, readMessageContext, readThreadContext } from '../../../src/agent/thread-context.js';
import { BOT_ID, BOT_USER_ID } from '../../fakes/fake-slack-api.js';
import { CHANNEL_ID } from '../../fixtures/slack.js';
import { useAgentUnit } from './support.js';

describe('contextOf (thread context cap)', () => {
  it('cuts an overlong newest message between graphemes, never leaving a lone surrogate', () => {
    const { text } = contextOf([`Bob Lee: ${'😀'.repeat(200)}`], 100);
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(text).toContain(`…${'😀'.repeat(99)}\n`);
  });

  it('keeps every line, oldest first, marked as context, when they fit', () => {
    const { text, note } = contextOf(['a: one', 'b: two'], 100);
    expect(text.split('\n')).toEqual([
      expect.stringContaining('--- Context: the 2 earlier messages'),
      'a: one',
      'b: two',
      '--- End of context ---',
    ]);
    expect(note).toBe('context: 2 earlier thread messages (capped at 100 characters)');
  });

  it('drops the oldest lines first past the cap and says how many', () => {
    const { text, note } = contextOf(['a: 1234567890', 'b: 1234567890', 'c: 1234567890'], 30);
    expect(text).not.toContain('a: ');
    expect(text).toContain('b: 1234567890\nc: 1234567890');
    expect(note).toBe('context: the last 2 of 3 earlier thread messages (capped at 30 characters, oldest left out)');
  });

  it('says when Slack gave only the thread’s first messages, capped or not', () => {
    const whole = contextOf(['a: one', 'b: two'], 100, true);
    expect(whole.text.split('\n')[0]).toBe(
      '--- Context: the first 2 earlier messages of the Slack thread this request was made in, oldest first (Slack gave no more: its later messages are not here). Use it as background; the instruction above is what to do. ---',
    );
    expect(whole.note).toBe(
      'context: the first 2 earlier thread messages (Slack gave no more; capped at 100 characters)',
    );
    const capped = contextOf(['a: 1234567890', 'b: 1234567890', 'c: 1234567890'], 30, true);
    expect(capped.note).toBe(
      'context: the last 2 of the first 3 earlier thread messages (Slack gave no more; capped at 30 characters, oldest left out)',
    );
  });

  it('cuts the newest message alone when it is longer than the cap, keeping its end', () => {
    const { text } = contextOf(['old', `new ${'x'.repeat(50)}END`], 20);
    const kept = text.split('\n')[1] as string;
    expect(kept.length).toBeLessThanOrEqual(20);
    expect(kept.endsWith('END')).toBe(true);
    expect(text.split('\n')).not.toContain('old');
  });
});

describe('readThreadContext', () => {
  const unit = useAgentUnit();
  const read = (threadTs: string, beforeTs: string) =>
    readThreadContext(unit().deps, { channel: CHANNEL_ID, threadTs, beforeTs, botUserId: BOT_USER_ID, botId: BOT_ID });

  it('reads the earlier messages by name, decoded, with files; other bots stay, this bot’s own posts do not', async () => {
    const { slack } = unit();
    const root = slack.postAs('U456BOB', CHANNEL_ID, 'Retries are <5> for @carol');
    const thread = { threadTs: root.ts };
    slack.postAs(BOT_USER_ID, CHANNEL_ID, 'Starting…', thread);
    const carol = slack.postAs('U345CAROL', CHANNEL_ID, 'See the log', {
      ...thread,
      files: [{ id: 'F1', name: 'app.log' }],
    });
    // Another bot's post (an alert) right after Carol's, as Slack stores it: a bot id, no person.
    const alert = {
      channel: CHANNEL_ID,
      ts: carol.ts.replace(/\d+$/, '000200'),
      thread_ts: root.ts,
      bot_id: 'B9',
      text: '5xx spike',
    };
    slack.messages.push(alert);
    const asking = slack.postAs('U123ALICE', CHANNEL_ID, 'Fix it', thread);
    slack.postAs('U456BOB', CHANNEL_ID, 'later', thread);
    const context = await read(root.ts, asking.ts);
    expect(context?.text.split('\n').slice(1, -1)).toEqual([
      'Bob Lee: Retries are <5> for @Carol Chen',
      'Carol Chen: See the log',
      `  [file: app.log ${slack.permalink(CHANNEL_ID, 'F1', 'app.log')}]`,
      'a bot: 5xx spike',
    ]);
    expect(context?.note).toBe('context: 3 earlier thread messages (capped at 8,000 characters)');
  });

  it('masks a key or token someone pasted earlier in the thread: the agent could write it into its pull request', async () => {
    const { slack } = unit();
    const root = slack.postAs(
      'U456BOB',
      CHANNEL_ID,
      'Our staging key is mint_stg4f1c2d9e8b7aQxyz, bot xoxb-2004-7723-Kq9sYc4Jm2',
    );
    const asking = slack.postAs('U123ALICE', CHANNEL_ID, 'Document the staging setup', { threadTs: root.ts });
    const context = await read(root.ts, asking.ts);
    expect(context?.text).toContain('Bob Lee: Our staging key is mint_…, bot xoxb-…');
    expect(context?.text).not.toMatch(/mint_stg|xoxb-2004/);
  });

  it('reads a long thread page by page', async () => {
    const { slack } = unit();
    const root = slack.postAs('U456BOB', CHANNEL_ID, 'm0');
    for (let i = 1; i < 250; i++) slack.postAs('U456BOB', CHANNEL_ID, `m${i}`, { threadTs: root.ts });
    const asking = slack.postAs('U123ALICE', CHANNEL_ID, 'Fix it', { threadTs: root.ts });
    const context = await read(root.ts, asking.ts);
    expect(slack.callsTo('conversations.replies')).toHaveLength(2);
    expect(context?.text).toContain('Bob Lee: m249');
    expect(context?.note).toBe('context: 250 earlier thread messages (capped at 8,000 characters)');
  });

  it('is nothing when no one wrote before the request', async () => {
    const { slack } = unit();
    const root = slack.postAs('U123ALICE', CHANNEL_ID, 'Fix it');
    expect(await read(root.ts, root.ts)).toBeUndefined();
  });
});

describe('readMessageContext (the message a form was opened on)', () => {
  const unit = useAgentUnit();

  it('is the message alone, a reply in its discussion too, and nothing when the instruction already holds it', async () => {
    const { slack, deps } = unit();
    const root = slack.postAs('U456BOB', CHANNEL_ID, 'Docs question');
    const reply = slack.postAs('U345CAROL', CHANNEL_ID, 'The SDK page says <v1> & @alice knows', { threadTs: root.ts });
    slack.postAs('U456BOB', CHANNEL_ID, 'later', { threadTs: root.ts });
    const at = { channel: CHANNEL_ID, threadTs: root.ts, messageTs: reply.ts };
    const context = await readMessageContext(deps, at, 'Document this');
    expect(context?.text.split('\n').slice(1, -1)).toEqual(['Carol Chen: The SDK page says <v1> & @alice knows']);
    expect(context?.note).toBe('context: the Slack message it is about');
    const top = await readMessageContext(deps, { ...at, messageTs: root.ts }, 'Answer it');
    expect(top?.text).toContain('\nBob Lee: Docs question\n');
    expect(top?.text).not.toContain('SDK');
    expect(await readMessageContext(deps, at, 'Fix: The SDK page says <v1> & @alice knows')).toBeUndefined();
    expect(await readMessageContext(deps, { ...at, messageTs: '1.000009' }, 'Document this')).toBeUndefined();
  });
});
