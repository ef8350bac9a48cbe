import { readFileSync } from 'node:fs';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackStandin, startSlackStandin } from '../../tools/slack-standin/index.js';
import { linksIn, manifestUnfurlDomains, unfurlDomainsOf } from '../../tools/slack-standin/unfurls.js';

const manifest = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');
const DOMAIN = manifestUnfurlDomains()[0] ?? '';
const attachment = { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Quickstart*' } }] };

/** App unfurling as Slack does it: message + link_shared for the manifest's domains, then chat.unfurl. */
describe('Slack stand-in: link_shared and chat.unfurl', () => {
  let slack: SlackStandin;
  let client: InstanceType<typeof webApi.WebClient>;

  beforeAll(async () => {
    slack = await startSlackStandin();
    client = new webApi.WebClient(slack.workspace.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  });
  afterAll(() => slack.close());

  it('reads unfurl_domains from the project’s manifest.yml', () => {
    expect(manifestUnfurlDomains()).toEqual(unfurlDomainsOf(manifest));
    expect(DOMAIN).toBe('docs.example.com');
  });

  it('sends the message, then link_shared naming only the links to an unfurl domain (subdomains too)', () => {
    const said = slack.people.says(
      'U456BOB',
      'C123DOCS',
      `see https://${DOMAIN}/quickstart and https://eu.${DOMAIN}/a and https://elsewhere.example/x`,
    );
    expect(said.events.map((e) => e.event.type)).toEqual(['message', 'link_shared']);
    expect(said.events[1]?.event).toMatchObject({
      type: 'link_shared',
      channel: 'C123DOCS',
      user: 'U456BOB',
      message_ts: said.ts,
      source: 'conversations_history',
      unfurl_id: expect.any(String),
      is_bot_user_member: true,
      links: [
        { domain: DOMAIN, url: `https://${DOMAIN}/quickstart` },
        { domain: DOMAIN, url: `https://eu.${DOMAIN}/a` },
      ],
    });
  });

  it('sends no link_shared for a message without such a link, nor to an app not subscribed to it', () => {
    const said = slack.people.says('U456BOB', 'C123DOCS', 'see https://elsewhere.example/x');
    expect(said.events.map((e) => e.event.type)).toEqual(['message']);
    slack.subscriptions.delete('link_shared');
    try {
      const unsubscribed = slack.people.says('U456BOB', 'C123DOCS', `see https://${DOMAIN}/quickstart`);
      expect(unsubscribed.events.map((e) => e.event.type)).toEqual(['message']);
    } finally {
      slack.subscriptions.add('link_shared');
    }
  });

  it('attaches the unfurls by unfurl_id and source, or by channel and ts, replacing rather than adding', async () => {
    const url = `https://${DOMAIN}/guides`;
    const said = slack.people.says('U456BOB', 'C123DOCS', `read ${url}`);
    const unfurlId = String(said.events[1]?.event.unfurl_id);
    await expect(
      client.chat.unfurl({ unfurl_id: unfurlId, source: 'conversations_history', unfurls: { [url]: attachment } }),
    ).resolves.toMatchObject({ ok: true });
    const second = { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'again' } }] };
    await client.chat.unfurl({ channel: 'C123DOCS', ts: said.ts, unfurls: { [url]: second } });
    const share = slack.tenant().linkShares.find((s) => s.unfurlId === unfurlId);
    expect(share?.unfurls).toEqual({ [url]: second });
  });

  it('sends a composer link_shared while a link is typed, answered by unfurl_id with source composer only', async () => {
    const url = `https://${DOMAIN}/sdks/node`;
    expect(slack.people.types('U456BOB', 'C123DOCS', 'no link yet').events).toEqual([]);
    const [envelope] = slack.people.types('U456BOB', 'C123DOCS', `draft: ${url}`).events;
    const event = envelope?.event ?? {};
    expect(event).toMatchObject({ type: 'link_shared', channel: 'COMPOSER', source: 'composer', links: [{ url }] });
    expect(event.message_ts).toBe(event.unfurl_id);
    const unfurlId = String(event.unfurl_id);
    await expect(
      client.chat.unfurl({ unfurl_id: unfurlId, source: 'conversations_history', unfurls: { [url]: attachment } }),
    ).rejects.toMatchObject({ data: { error: 'invalid_unfurl_id' } });
    await client.chat.unfurl({ unfurl_id: unfurlId, source: 'composer', unfurls: { [url]: attachment } });
    expect(slack.tenant().linkShares.find((s) => s.unfurlId === unfurlId)?.unfurls).toEqual({ [url]: attachment });
  });

  it('answers a composer link_shared by its own channel and message_ts too (COMPOSER and the unfurl id)', async () => {
    const url = `https://${DOMAIN}/sdks/python`;
    const event = slack.people.types('U456BOB', 'C123DOCS', url).events[0]?.event ?? {};
    const target = { channel: String(event.channel), ts: String(event.message_ts) };
    await expect(client.chat.unfurl({ ...target, unfurls: { [url]: attachment } })).resolves.toMatchObject({
      ok: true,
    });
    expect(slack.tenant().linkShares.find((s) => s.unfurlId === event.unfurl_id)?.unfurls).toEqual({
      [url]: attachment,
    });
    await expect(
      client.chat.unfurl({ channel: 'COMPOSER', ts: 'U456BOB-0', unfurls: { [url]: attachment } }),
    ).rejects.toMatchObject({ data: { error: 'cannot_find_message' } });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no channel', { ts: '1.0' }, 'missing_channel'],
    ['no ts', { channel: 'C123DOCS' }, 'missing_ts'],
    ['a message that is not there', { channel: 'C123DOCS', ts: '9.9' }, 'cannot_find_message'],
    ['an unfurl_id without source', { unfurl_id: 'X' }, 'missing_source'],
    ['a source without unfurl_id', { source: 'composer' }, 'missing_unfurl_id'],
    ['a source Slack does not have', { unfurl_id: 'X', source: 'sidebar' }, 'invalid_source'],
    ['an unfurl_id Slack never sent', { unfurl_id: 'X', source: 'composer' }, 'invalid_unfurl_id'],
  ])('refuses %s as Slack does', async (_, target, error) => {
    await expect(client.apiCall('chat.unfurl', { ...target, unfurls: JSON.stringify({}) })).rejects.toMatchObject({
      data: { ok: false, error },
    });
  });

  it('refuses unfurls it cannot read, and a URL the message does not hold', async () => {
    const url = `https://${DOMAIN}/changelog`;
    const said = slack.people.says('U456BOB', 'C123DOCS', url);
    const target = { channel: 'C123DOCS', ts: said.ts };
    const refused = async (unfurls: unknown, error: string) =>
      expect(client.apiCall('chat.unfurl', { ...target, unfurls })).rejects.toMatchObject({ data: { error } });
    await refused(undefined, 'missing_unfurls');
    await refused('{not json', 'invalid_unfurls_format');
    await refused(JSON.stringify([attachment]), 'invalid_unfurls_format');
    await refused(JSON.stringify({ [url]: 'text' }), 'cannot_parse_attachment');
    await refused(JSON.stringify({ [url]: { blocks: [{ type: 'nope' }] } }), 'cannot_parse_attachment');
    await refused(JSON.stringify({ [`https://${DOMAIN}/other`]: attachment }), 'cannot_unfurl_message');
    const message = 'the message without a link_shared';
    const plain = slack.people.says('U456BOB', 'C123DOCS', message);
    await expect(
      client.chat.unfurl({ channel: 'C123DOCS', ts: plain.ts, unfurls: { [url]: attachment } }),
    ).rejects.toMatchObject({ data: { error: 'cannot_unfurl_url' } });
  });

  it('wants links:write, which the manifest gives', async () => {
    slack.acceptToken('xoxb-no-links', 'bot', undefined, ['chat:write']);
    const narrow = new webApi.WebClient('xoxb-no-links', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    await expect(narrow.chat.unfurl({ channel: 'C123DOCS', ts: '1.0', unfurls: {} })).rejects.toMatchObject({
      data: { error: 'missing_scope', needed: 'links:write' },
    });
  });

  it('finds the links of wire text, labelled or not, each once', () => {
    expect(linksIn('<https://a.example/x|x> and <https://a.example/x> <mailto:b@c> <@U1>')).toEqual([
      'https://a.example/x',
    ]);
  });
});
