import { describe, expect, it } from 'vitest';
import { postRootMessage } from '../../../src/agent/root-post.js';
import { CHANNEL_ID, USER_ID } from '../../fixtures/slack.js';
import { readable, useAgentUnit } from './support.js';

const THREAD = '1700000000.000100';
const input = { project: 'proj_test', userId: USER_ID, channel: CHANNEL_ID, prompt: 'Fix <it>', showProject: false };

describe('postRootMessage', () => {
  const unit = useAgentUnit();
  const post = (threadTs?: string) => postRootMessage(unit().deps, { ...input, threadTs });
  const posts = () => unit().slack.callsTo('chat.postMessage').length;

  it('posts "Starting…" with who asked and what, tagged with a request id to find it again', async () => {
    const { slack } = unit();
    const posted = await post();
    expect(posted).toEqual({ ok: true, ts: slack.messages[0]?.ts });
    const [root] = slack.messages;
    expect(readable(root)).toContain('<@U123ALICE> asked the Mintlify agent');
    expect(readable(root)).toContain('Starting…');
    expect(readable(root)).toContain('Fix &lt;it&gt;');
    expect(root?.thread_ts).toBeUndefined();
    expect(root?.metadata).toEqual({
      event_type: 'mintlify_agent_request',
      event_payload: { request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    });
  });

  it('posts in the thread it is given', async () => {
    await post(THREAD);
    expect(unit().slack.messages).toEqual([expect.objectContaining({ thread_ts: THREAD })]);
  });

  // Slack's shortest Retry-After is a second: each of these two tests waits it out once.
  it('waits out a short 429 (Slack did nothing), then posts once', async () => {
    const { slack } = unit();
    slack.fail('chat.postMessage', { status: 429, retryAfterSec: 1 });
    const started = Date.now();
    expect(await post()).toMatchObject({ ok: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(posts()).toBe(2);
    expect(slack.messages).toHaveLength(1);
  });

  it('waits out a 429 only once: a second one is the answer', async () => {
    const { slack } = unit();
    slack.fail('chat.postMessage', { status: 429, retryAfterSec: 1 }, 2);
    expect(await post()).toEqual({ ok: false, code: 'ratelimited', notInChannel: false });
    expect(posts()).toBe(2);
    expect(slack.messages).toEqual([]);
  });

  it('does not wait when Slack asks for longer than a person should', async () => {
    const { slack } = unit();
    slack.fail('chat.postMessage', { status: 429, retryAfterSec: 30 });
    const started = Date.now();
    expect(await post()).toEqual({ ok: false, code: 'ratelimited', notInChannel: false });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(posts()).toBe(1);
  });

  it.each([
    ['in the channel', undefined, 'conversations.history'],
    ['in a thread', THREAD, 'conversations.replies'],
  ])('after a 5xx, finds the message Slack stored anyway (%s) and never posts it twice', async (_w, thread, read) => {
    const { slack } = unit();
    slack.fail('chat.postMessage', { status: 503, afterStoring: true });
    const posted = await post(thread);
    expect(slack.messages).toHaveLength(1);
    expect(posted).toEqual({ ok: true, ts: slack.messages[0]?.ts });
    expect(posts()).toBe(1);
    expect(slack.callsTo(read)).toHaveLength(1);
  });

  it('after a 5xx in a thread of 40 replies a non-Marketplace app reads 15 a page, once a minute: finds it in one read', async () => {
    const { slack } = unit();
    // A thread people wrote in over the last hour; the job is asked for in it.
    const hourAgo = Date.now() - 3_600_000;
    const thread = slack.postAs(USER_ID, CHANNEL_ID, 'Where do we say how retries work?', { at: hourAgo });
    for (let i = 1; i <= 40; i++) {
      slack.postAs(USER_ID, CHANNEL_ID, `note ${i}`, { threadTs: thread.ts, at: hourAgo + i * 80_000 });
    }
    slack.rateLimits.enable({ conversations: 'non-marketplace' });
    slack.fail('chat.postMessage', { status: 503, afterStoring: true });
    const posted = await post(thread.ts);
    const roots = slack.messages.filter((m) => readable(m).includes('Starting…'));
    expect(roots).toHaveLength(1);
    expect(posted).toEqual({ ok: true, ts: roots[0]?.ts });
    expect(posts()).toBe(1);
    expect(slack.rateLimits.report()['conversations.replies']).toMatchObject({ calls: 1, ratelimited: 0 });
  });

  it('after a 5xx with nothing stored, fails without posting again (the caller says so)', async () => {
    const { slack } = unit();
    slack.fail('chat.postMessage', { status: 500 });
    expect(await post()).toEqual({ ok: false, code: 'http_500', notInChannel: false });
    expect(slack.messages).toEqual([]);
    expect(posts()).toBe(1);
  });

  it('does not take another request’s message for its own', async () => {
    const { slack } = unit();
    await post();
    slack.fail('chat.postMessage', { status: 500 });
    expect(await post()).toMatchObject({ ok: false });
    expect(slack.messages).toHaveLength(1);
  });

  it.each([
    ['not_in_channel', true],
    ['channel_not_found', true],
    ['is_archived', true],
    ['msg_too_long', false],
  ])('says whether %s is the bot not being in the conversation', async (error, notInChannel) => {
    unit().slack.fail('chat.postMessage', { error });
    expect(await post()).toEqual({ ok: false, code: error, notInChannel });
    expect(posts()).toBe(1);
  });
});

describe('postRootMessage as a plan card', () => {
  const unit = useAgentUnit({ SLACK_PLAN_CARD: 'true' });

  it('streams the instruction as text, never as Markdown: a link, a heading or a list in it stays what was typed', async () => {
    const prompt =
      '[Open pull request](https://evil.example/pr)\n# Merged\n- **done** `x` ![i](https://evil.example/i.png)\n1. ok';
    expect(await postRootMessage(unit().deps, { ...input, prompt })).toMatchObject({ ok: true, card: true });
    const [start] = unit().slack.callsTo('chat.startStream');
    const chunks = start?.args.chunks as { type: string; text?: string }[];
    const markdown = chunks.find((c) => c.type === 'markdown_text')?.text ?? '';
    expect(markdown).toContain('<@U123ALICE> asked the Mintlify agent:');
    // Each line of the quote: Markdown's punctuation escaped, so Slack shows it as typed.
    expect(markdown).toContain('>\\[Open pull request\\]\\(https://evil\\.example/pr\\)');
    expect(markdown).toContain('>\\# Merged');
    expect(markdown).toContain('>\\- \\*\\*done\\*\\* \\`x\\` \\!\\[i\\]');
    expect(markdown).toContain('>1\\. ok');
  });
});
