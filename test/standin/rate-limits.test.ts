import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  NON_MARKETPLACE_PAGE,
  otherWorkspace,
  type SlackStandin,
  startSlackStandin,
} from '../../tools/slack-standin/index.js';

/** Slack's rate tiers, per method per workspace, answered over HTTP as Slack answers them. */
describe('Slack stand-in: rate tiers', () => {
  let slack: SlackStandin;
  let clock: number;

  beforeEach(async () => {
    clock = Date.UTC(2026, 0, 15, 12);
    slack = await startSlackStandin(undefined, 0, { now: () => clock });
    slack.addWorkspace(otherWorkspace('T2', 'globex'));
  });
  afterEach(() => slack.close());

  /** One Web API call as the app makes it, read raw: status, Retry-After, body. */
  async function call(method: string, args: Record<string, unknown>, token = slack.workspace.botToken) {
    const res = await fetch(`${slack.apiUrl}${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as never };
  }

  async function times(n: number, method: string, args: Record<string, unknown>, token?: string) {
    const answers = [];
    for (let i = 0; i < n; i++) answers.push(await call(method, args, token));
    return answers;
  }

  it('are off by default, and calls are still counted per method', async () => {
    const root = await call('chat.postMessage', { channel: 'C123DOCS', text: 'root' });
    const ts = (root.body as { ts: string }).ts;
    const answers = await times(60, 'chat.update', { channel: 'C123DOCS', ts, text: 'edit' });
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(slack.rateLimits.report()['chat.update']).toEqual({ calls: 60, ratelimited: 0, peakPerMinute: 60 });
  });

  it('answer 429 with Retry-After and ratelimited past a Tier 3 method’s 50 a minute, without doing the call', async () => {
    slack.rateLimits.enable();
    const root = await call('chat.postMessage', { channel: 'C123DOCS', text: 'root' });
    const ts = (root.body as { ts: string }).ts;
    clock += 30_000;
    const answers = await times(50, 'chat.update', { channel: 'C123DOCS', ts, text: 'edit' });
    expect(answers.every((a) => a.status === 200)).toBe(true);
    clock += 10_000;
    const over = await call('chat.update', { channel: 'C123DOCS', ts, text: 'one too many' });
    expect(over).toEqual({ status: 429, retryAfter: '50', body: { ok: false, error: 'ratelimited' } });
    expect(slack.messages.find((m) => m.ts === ts)?.text).toBe('edit');
    clock += 50_000;
    expect((await call('chat.update', { channel: 'C123DOCS', ts, text: 'later' })).status).toBe(200);
    expect(slack.rateLimits.report()['chat.update']).toMatchObject({ calls: 52, ratelimited: 1 });
  });

  it('let chat.postMessage post about once a second per channel', async () => {
    slack.rateLimits.enable();
    expect((await call('chat.postMessage', { channel: 'C123DOCS', text: 'one' })).status).toBe(200);
    const second = await call('chat.postMessage', { channel: 'C123DOCS', text: 'two' });
    expect(second).toMatchObject({ status: 429, retryAfter: '1' });
    expect((await call('chat.postMessage', { channel: 'C234GENERAL', text: 'elsewhere' })).status).toBe(200);
    clock += 1_000;
    expect((await call('chat.postMessage', { channel: 'C123DOCS', text: 'two, later' })).status).toBe(200);
    expect(slack.messages.map((m) => m.text)).toEqual(['one', 'elsewhere', 'two, later']);
  });

  it('count per workspace, and take budgets per method and per workspace', async () => {
    slack.rateLimits.enable();
    slack.rateLimits.set('users.info', [{ limit: 2, windowMs: 60_000 }], 'T2');
    const globex = await times(3, 'users.info', { user: 'U2ANA' }, 'xoxb-globex-token');
    expect(globex.map((a) => a.status)).toEqual([200, 200, 429]);
    const acme = await times(3, 'users.info', { user: 'U123ALICE' });
    expect(acme.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(slack.rateLimits.report('T2')['users.info']).toMatchObject({ calls: 3, ratelimited: 1 });
    expect(slack.rateLimits.report('T1')['users.info']).toMatchObject({ calls: 3, ratelimited: 0 });
  });

  it('model Slack’s 2025 limits for non-Marketplace apps on history and replies: 1 a minute, 15 a page', async () => {
    slack.rateLimits.enable({ conversations: 'non-marketplace' });
    for (let i = 0; i < 20; i++) {
      slack.postAs('U123ALICE', 'C123DOCS', `message ${i}`);
    }
    const first = await call('conversations.history', { channel: 'C123DOCS', limit: 100 });
    const page = first.body as { messages: unknown[]; has_more: boolean };
    expect(page.messages).toHaveLength(NON_MARKETPLACE_PAGE);
    expect(page.has_more).toBe(true);
    expect(await call('conversations.history', { channel: 'C123DOCS' })).toMatchObject({
      status: 429,
      retryAfter: '60',
    });
    expect((await call('conversations.replies', { channel: 'C123DOCS', ts: '1.0' })).status).toBe(200);
    clock += 60_000;
    expect((await call('conversations.history', { channel: 'C123DOCS' })).status).toBe(200);
  });

  it('keep Tier 3 and 1,000-message pages for Marketplace and internal apps', async () => {
    slack.rateLimits.enable();
    for (let i = 0; i < 20; i++) slack.postAs('U123ALICE', 'C123DOCS', `message ${i}`);
    const answers = await times(3, 'conversations.history', { channel: 'C123DOCS', limit: 100 });
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect((answers[0]?.body as { messages: unknown[] } | undefined)?.messages).toHaveLength(20);
  });

  it('scale their windows for an accelerated clock: a minute in a second', async () => {
    slack.rateLimits.enable({ windowScale: 1 / 60 });
    slack.rateLimits.set('conversations.info', 1);
    expect((await call('conversations.info', { channel: 'C123DOCS' })).status).toBe(200);
    expect(await call('conversations.info', { channel: 'C123DOCS' })).toMatchObject({ status: 429, retryAfter: '1' });
    clock += 1_000;
    expect((await call('conversations.info', { channel: 'C123DOCS' })).status).toBe(200);
    expect(slack.rateLimits.report()['conversations.info']).toEqual({ calls: 3, ratelimited: 1, peakPerMinute: 2 });
  });

  it('reach Slack’s own client as a rate-limited error carrying Retry-After', async () => {
    slack.rateLimits.enable();
    const client = new webApi.WebClient(slack.workspace.botToken, {
      slackApiUrl: slack.apiUrl,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
    });
    await client.chat.postMessage({ channel: 'C123DOCS', text: 'one' });
    await expect(client.chat.postMessage({ channel: 'C123DOCS', text: 'two' })).rejects.toMatchObject({
      code: webApi.ErrorCode.RateLimitedError,
      retryAfter: 1,
    });
  });
});
