import { describe, expect, it } from 'vitest';
import { UNFURLS_PER_WINDOW } from '../../src/unfurls/unfurl.js';
import { viewSubmission } from '../fixtures/conversation.js';
import { buttonClick, buttonsIn, CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';

/** The docs site of the test project: its domain is the manifest's `unfurl_domains` entry. */
const DOCS = 'https://docs.example.com';
const ANALYTICS = `/v1/analytics/${TEST_PROJECT_ID}`;

interface Attachment {
  blocks: { type: string; text?: { text: string }; fields?: { text: string }[] }[];
}

describe.each(storeKinds)('docs links unfurled with their readers ($label)', (store) => {
  const h = useHarness({ store, env: { MINTLIFY_DOCS_URL: DOCS }, boot: true });

  const unfurlCalls = () => h.slack.callsTo('chat.unfurl');
  const serviceCalls = () => h.sim.requests.filter((r) => r.path.startsWith(ANALYTICS)).length;

  /**
   * The service's next feedback by page lists these pages (the simulator's seed rates a page on some weeks only,
   * and the test runs on today's).
   */
  function ratingsServed(feedback: { path: string; thumbsUp: number; thumbsDown: number; code: number }[]) {
    const rows = feedback.map((row) => ({ ...row, total: row.thumbsUp + row.thumbsDown + row.code }));
    h.sim.injectFault({
      kind: 'not-json',
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ feedback: rows, hasMore: false }),
      count: 1,
      match: { operation: 'feedback-by-page' },
    });
  }

  /** A person pastes `typed` in the channel; Slack delivers the message and, for a docs domain, link_shared. */
  async function paste(typed: string) {
    const said = h.slack.people.says(USER_ID, CHANNEL_ID, typed);
    await h.deliver(said.events);
    return said;
  }

  /** The `n`th unfurl the app sent, by URL. */
  async function unfurled(n: number): Promise<Record<string, Attachment>> {
    const call = await eventually(() => unfurlCalls()[n], 5_000, `chat.unfurl ${n}`);
    return call.args.unfurls as Record<string, Attachment>;
  }

  it('unfurls a docs link with its human and AI visitors, their change and Update this page, once per 10 min', async () => {
    const url = `${DOCS}/quickstart`;
    ratingsServed([{ path: '/quickstart', thumbsUp: 12, thumbsDown: 3, code: 1 }]);
    const said = await paste(`Have you read ${url} lately?`);
    const attachment = (await unfurled(0))[url];
    const text = JSON.stringify(attachment);
    expect(text).toContain(`<${url}|/quickstart>`);
    expect(text).toMatch(/Human visitors\\n\*[\d,]+\* {2}(▲|▼|±|new)/);
    expect(text).toMatch(/AI visitors\\n\*[\d,]+\* {2}(▲|▼|±|new)/);
    const [button] = buttonsIn(attachment?.blocks);
    expect(button?.button).toMatchObject({ action_id: 'insights.draft', text: { text: 'Update this page' } });
    expect(JSON.parse(button?.button.value ?? '')).toMatchObject({
      kind: 'page',
      project: TEST_PROJECT_ID,
      path: '/quickstart',
    });
    // What Slack keeps on the message is what the app sent for the link_shared it got.
    const share = h.slack.tenant().linkShares.find((s) => s.messageTs === said.ts);
    expect(share?.unfurls[url]).toEqual(attachment);
    const rated = h.sim.requests.find((r) => r.path === `${ANALYTICS}/feedback/by-page`);
    expect(rated?.query).toMatchObject({ limit: '100' });
    expect(text).toContain('👍 *12*  👎 *3*');
    const asked = serviceCalls();
    expect(asked).toBeGreaterThanOrEqual(3); // visitors of the last 7 days and the 7 before, and the ratings

    await paste(`Again: ${url}`);
    expect((await unfurled(1))[url]).toEqual(attachment);
    expect(serviceCalls()).toBe(asked);
  });

  it('shows no ratings for a page nobody rated up or down in the week (only code-snippet feedback)', async () => {
    const url = `${DOCS}/quickstart`;
    ratingsServed([{ path: '/quickstart', thumbsUp: 0, thumbsDown: 0, code: 2 }]);
    await paste(url);
    const text = JSON.stringify((await unfurled(0))[url]);
    expect(text).toContain('Human visitors');
    expect(text).not.toContain("Readers' ratings");
  });

  it('unfurls a docs link still in the composer, by its unfurl_id', async () => {
    const url = `${DOCS}/quickstart`;
    await h.deliver(h.slack.people.types(USER_ID, CHANNEL_ID, `draft ${url}`).events);
    const call = await eventually(() => h.slack.callsTo('chat.unfurl')[0], 5_000, 'chat.unfurl');
    expect(call.args).toMatchObject({ source: 'composer', unfurl_id: expect.any(String) });
    const share = h.slack.tenant().linkShares.find((s) => s.source === 'composer');
    await eventually(() => Object.keys(share?.unfurls ?? {}).length > 0, 5_000, 'the composer preview');
    expect(JSON.stringify(share?.unfurls[url])).toContain('Human visitors');
  });

  it('unfurls the docs links of one message once each, keyed as Slack named them, at most five', async () => {
    const links = [
      `${DOCS}/quickstart`,
      `${DOCS}/quickstart/`,
      `${DOCS}/quickstart?utm_source=slack&tab=node#step-2`,
      'http://docs.example.com/changelog',
      `${DOCS}/api/auth`,
      `${DOCS}/sdks`,
    ];
    const said = await paste(
      `Start at <${links[0]}|the quickstart>, ${links[0]} again, ${links.slice(1).join(' and ')}, not https://elsewhere.example/x`,
    );
    const named = said.events.find((e) => e.event.type === 'link_shared')?.event.links as { url: string }[];
    expect(named.map((l) => l.url)).toEqual(links);
    const unfurls = await unfurled(0);
    expect(Object.keys(unfurls)).toEqual(links.slice(0, 5));
    expect(JSON.stringify(unfurls[links[2] ?? ''])).toContain('/quickstart');
    await settle();
    expect(unfurlCalls()).toHaveLength(1);
    const share = h.slack.tenant().linkShares.find((s) => s.messageTs === said.ts);
    expect(Object.keys(share?.unfurls ?? {})).toEqual(links.slice(0, 5));
  });

  it.each([
    [
      'the same page five ways',
      ['/quickstart', '/quickstart/', '/quickstart#step-2', '/quickstart?tab=node', '/quickstart/#x'],
    ],
    ['five pages, one the service does not know', ['/quickstart', '/changelog', '/api/auth', '/sdks', '/no-such-page']],
  ])('asks the service each question once for the docs links of one message: %s', async (_, paths) => {
    const links = paths.map((path) => `${DOCS}${path}`);
    await paste(links.join(' '));
    const unfurls = await unfurled(0);
    expect(Object.keys(unfurls)).toEqual(links);
    expect(JSON.stringify(unfurls[links[0] ?? ''])).toContain('Human visitors');
    const asked = h.sim.requests
      .filter((r) => r.path.startsWith(ANALYTICS))
      .map((r) => `${r.path}?${new URLSearchParams(r.query as Record<string, string>)}`);
    expect(asked.length).toBeGreaterThanOrEqual(3);
    expect(asked).toEqual([...new Set(asked)]);
  });

  it('unfurls a composer link_shared without unfurl_id and source by its channel and message_ts', async () => {
    const url = `${DOCS}/quickstart`;
    const [typed] = h.slack.people.types(USER_ID, CHANNEL_ID, url).events;
    if (!typed) throw new Error('no composer link_shared');
    const { unfurl_id: unfurlId, source: _, ...older } = typed.event;
    await h.deliver({ ...typed, event: older });
    const call = await eventually(() => unfurlCalls()[0], 5_000, 'chat.unfurl');
    expect(call.args).toMatchObject({ channel: 'COMPOSER', ts: unfurlId });
    const share = () => h.slack.tenant().linkShares.find((s) => s.unfurlId === unfurlId);
    await eventually(() => Object.keys(share()?.unfurls ?? {}).length > 0, 5_000, 'the composer preview');
  });

  it('gives a page the service does not know a plain preview: its path and project, no numbers, no button', async () => {
    const url = `${DOCS}/no-such-page`;
    await paste(url);
    const attachment = (await unfurled(0))[url];
    const text = JSON.stringify(attachment);
    expect(text).toContain('/no-such-page');
    expect(text).toContain(TEST_PROJECT_ID);
    expect(text).not.toContain('visitors');
    expect(buttonsIn(attachment?.blocks)).toEqual([]);
  });

  it.each([
    ['429', { kind: 'rate-limit', retryAfterSec: 1 }],
    ['500', { kind: 'status', status: 500 }],
    ['400', { kind: 'status', status: 400, error: 'Invalid date range' }],
  ] as const)(
    'the service answering %s: the plain preview, and the numbers once it answers again',
    async (_, fault) => {
      h.sim.injectFault({ ...fault, count: Number.POSITIVE_INFINITY, match: { operation: 'visitors' } });
      const url = `${DOCS}/quickstart`;
      await paste(url);
      const plain = JSON.stringify((await unfurled(0))[url]);
      expect(plain).toContain('/quickstart');
      expect(plain).not.toContain('visitors');
      h.sim.clearFaults();
      await paste(url);
      expect(JSON.stringify((await unfurled(1))[url])).toContain('Human visitors');
    },
  );

  it('a docs link in a DM between two people: its numbers, but no Update this page (no job can start there)', async () => {
    const dm = 'D567ALICEBOB';
    h.slack.workspace.channels.push({ id: dm, name: 'directmessage', directMessage: true, botMember: false });
    const url = `${DOCS}/quickstart`;
    const said = h.slack.people.says(USER_ID, dm, `see ${url}`);
    const shared = said.events.filter((e) => e.event.type === 'link_shared');
    expect(shared[0]?.event).toMatchObject({ channel: dm, is_bot_user_member: false });
    await h.deliver(shared);
    const attachment = (await unfurled(0))[url];
    expect(JSON.stringify(attachment)).toContain('Human visitors');
    expect(buttonsIn(attachment?.blocks)).toEqual([]);
  });

  it('ignores a link to an unfurl domain that is not a connected project’s docs', async () => {
    // This test's Slack app also unfurls a status page (the stand-in is made again for each test).
    h.slack.unfurlDomains = [...h.slack.unfurlDomains, 'status.example.org'];
    const said = await paste('Outage: https://status.example.org/incidents/42');
    expect(said.events.map((e) => e.event.type)).toEqual(['message', 'link_shared']);
    // The app answered the message (a person's, not a job's thread) and the link_shared: it unfurled nothing.
    await paste(`${DOCS}/changelog`);
    const last = await unfurled(0);
    expect(Object.keys(last)).toEqual([`${DOCS}/changelog`]);
    expect(unfurlCalls()).toHaveLength(1);
  });

  it('unfurls once when Slack delivers the same link_shared again (X-Slack-Retry-Num)', async () => {
    const said = h.slack.people.says(USER_ID, CHANNEL_ID, `${DOCS}/quickstart`);
    const linkShared = said.events.filter((e) => e.event.type === 'link_shared');
    await h.deliver(said.events);
    await unfurled(0);
    const asked = serviceCalls();
    await h.deliver(linkShared, { retry: 1 });
    await h.deliver(linkShared, { retry: 2 });
    await settle();
    expect(unfurlCalls()).toHaveLength(1);
    expect(h.app.logs().match(/"event":"agent\.duplicate_event"/g)).toHaveLength(2);
    expect(serviceCalls()).toBe(asked);
  });

  it('logs Slack refusing an unfurl, and unfurls the next link as usual', async () => {
    h.slack.fail('chat.unfurl', { error: 'cannot_unfurl_url' });
    const refused = await paste(`${DOCS}/quickstart`);
    await eventually(() => h.app.logs().includes('slack.unfurl_failed'), 5_000, 'the refusal logged');
    expect(h.app.logs()).toContain('cannot_unfurl_url');
    const said = await paste(`${DOCS}/quickstart`);
    const shares = () => h.slack.tenant().linkShares;
    await eventually(() => Object.keys(shares().find((s) => s.messageTs === said.ts)?.unfurls ?? {}).length > 0);
    expect(shares().find((s) => s.messageTs === refused.ts)?.unfurls).toEqual({});
  });

  it('after Slack’s 429, leaves links to Slack until its Retry-After is over, and logs the refusal once', async () => {
    h.slack.fail('chat.unfurl', { status: 429, retryAfterSec: 30 });
    await paste(`${DOCS}/quickstart`);
    await eventually(() => h.app.logs().includes('slack.unfurl_failed'), 5_000, 'the 429 logged');
    await paste(`${DOCS}/changelog`);
    await eventually(() => h.app.logs().includes('unfurls.skipped'), 5_000, 'the next link left to Slack');
    expect(h.app.logs()).toContain('"reason":"slack_wait"');
    expect(unfurlCalls()).toHaveLength(1);
    expect(h.app.logs().match(/slack\.unfurl_failed/g)).toHaveLength(1);
    expect(h.app.logs()).not.toContain(h.slack.workspace.botToken);
  });

  it('logs a 5xx of chat.unfurl once, without trying it again, and unfurls the next link as usual', async () => {
    h.slack.fail('chat.unfurl', { status: 503 });
    await paste(`${DOCS}/quickstart`);
    await eventually(() => h.app.logs().includes('slack.unfurl_failed'), 5_000, 'the 503 logged');
    expect(h.app.logs()).toContain('"slack_error":"http_503"');
    await paste(`${DOCS}/changelog`);
    await unfurled(1);
    expect(unfurlCalls()).toHaveLength(2);
    expect(h.app.logs().match(/slack\.unfurl_failed/g)).toHaveLength(1);
  });

  it('Update this page is Draft a fix for the page: its form, prefilled from the page, starts a job', async () => {
    const url = `${DOCS}/quickstart`;
    await paste(url);
    const [button] = buttonsIn((await unfurled(0))[url]?.blocks);
    if (!button) throw new Error('no Update this page on the unfurl');
    await h.interact(buttonClick(button.button));
    const opened = await eventually(() => h.slack.callsTo('views.open')[0], 5_000, 'the Draft a fix form');
    const view = opened.args.view as Record<string, unknown>;
    expect(view.callback_id).toBe('insights.draft_fix');
    expect(JSON.stringify(view.blocks)).toContain('Improve the docs page /quickstart.');
    await h.interact(viewSubmission(view, 'Improve the docs page /quickstart: say Node 24 is required'));
    const create = await eventually(() => h.creates()[0], 5_000, 'the job');
    expect((create.body as { prompt: string }).prompt).toContain(
      'Improve the docs page /quickstart: say Node 24 is required',
    );
  });
});

describe('docs links where another organisation would see them', () => {
  const h = useHarness({ env: { MINTLIFY_DOCS_URL: DOCS }, boot: true });
  const PARTNERS = 'C456PARTNERS'; // shared with Initech, which has not installed the app
  const DAVE = 'U9DAVE'; // of Initech

  /** What the app unfurled `url` as, once it has. */
  async function shownFor(url: string, share: () => { unfurls: Record<string, unknown> } | undefined) {
    await eventually(() => Object.keys(share()?.unfurls ?? {}).length > 0, 5_000, 'the unfurl');
    return JSON.stringify(share()?.unfurls[url]);
  }

  it('a person of another organisation typing a docs link gets the plain preview: no numbers, no button', async () => {
    const url = `${DOCS}/quickstart`;
    await h.deliver(h.slack.people.types(DAVE, PARTNERS, url).events);
    const shown = await shownFor(url, () => h.slack.tenant().linkShares.find((s) => s.source === 'composer'));
    expect(shown).toContain('/quickstart');
    expect(shown).not.toContain('visitors');
    expect(shown).not.toContain('Update this page');
    expect(h.sim.requests.filter((r) => r.path.startsWith(ANALYTICS))).toEqual([]);
  });

  it('a docs link our member posts in a channel shared with another organisation: the plain preview', async () => {
    const url = `${DOCS}/quickstart`;
    const said = h.slack.people.says(USER_ID, PARTNERS, `see ${url}`);
    await h.deliver(said.events);
    const shown = await shownFor(url, () => h.slack.tenant().linkShares.find((s) => s.messageTs === said.ts));
    expect(shown).toContain('/quickstart');
    expect(shown).not.toContain('visitors');
  });

  it('the same member in a channel of the workspace alone: the numbers', async () => {
    const url = `${DOCS}/quickstart`;
    const said = h.slack.people.says(USER_ID, CHANNEL_ID, url);
    await h.deliver(said.events);
    const shown = await shownFor(url, () => h.slack.tenant().linkShares.find((s) => s.messageTs === said.ts));
    expect(shown).toContain('Human visitors');
  });
});

describe('docs links unfurled within the workspace’s budget', () => {
  const h = useHarness({ env: { MINTLIFY_DOCS_URL: DOCS }, boot: true });

  it(`unfurls at most ${UNFURLS_PER_WINDOW} links a minute in a workspace, leaving the rest to Slack`, async () => {
    for (let i = 0; i <= UNFURLS_PER_WINDOW; i++) {
      await h.deliver(h.slack.people.says(USER_ID, CHANNEL_ID, `${DOCS}/quickstart`).events);
    }
    await eventually(() => h.app.logs().includes('unfurls.skipped'), 8_000, 'the unfurl over budget skipped');
    expect(h.app.logs()).toContain('"reason":"budget"');
    await eventually(() => h.slack.callsTo('chat.unfurl').length === UNFURLS_PER_WINDOW, 5_000, 'the unfurls made');
    const unfurled = h.slack.tenant().linkShares.filter((s) => Object.keys(s.unfurls).length > 0);
    expect(unfurled).toHaveLength(UNFURLS_PER_WINDOW);
  });
});
