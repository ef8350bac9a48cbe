import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EventEnvelope,
  httpDelivery,
  type SlackStandin,
  startSlackStandin,
} from '../../tools/slack-standin/index.js';
import { BOLT_SIGNING_SECRET, startBoltApp } from '../support/bolt-app.js';
import { eventually } from '../support/test-app.js';

describe('Slack stand-in: people', () => {
  let slack: SlackStandin;
  let clock: number;
  let client: webApi.WebClient;
  const info = async (user: string) => (await client.users.info({ user })).user as Record<string, unknown>;

  beforeAll(async () => {
    clock = Date.UTC(2026, 0, 15, 12);
    slack = await startSlackStandin(undefined, 0, { now: () => clock });
    client = new webApi.WebClient(slack.workspace.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  });
  afterAll(() => slack.close());

  it.each([
    ['January', Date.UTC(2026, 0, 15, 12), 'U456BOB', 'New Zealand Daylight Time', 13 * 3600],
    ['January', Date.UTC(2026, 0, 15, 12), 'U123ALICE', 'Pacific Standard Time', -8 * 3600],
    ['July', Date.UTC(2026, 6, 15, 12), 'U456BOB', 'New Zealand Standard Time', 12 * 3600],
    ['July', Date.UTC(2026, 6, 15, 12), 'U123ALICE', 'Pacific Daylight Time', -7 * 3600],
  ])(
    'users.info gives the zone, its label and its offset in %s (%s), daylight saving included',
    async (_, at, user, label, offset) => {
      clock = at;
      expect(await info(user)).toMatchObject({ tz_label: label, tz_offset: offset, team_id: 'T1' });
    },
  );

  it('users.info tells admins, owners and guests apart, and bots from people', async () => {
    expect(await info('U567OWEN')).toMatchObject({
      tz: 'Pacific/Auckland',
      is_admin: true,
      is_owner: true,
      is_primary_owner: true,
      is_restricted: false,
    });
    expect(await info('U678GUS')).toMatchObject({ is_restricted: true, is_ultra_restricted: true, is_admin: false });
    expect(await info('U123ALICE')).toMatchObject({
      tz: 'America/Los_Angeles',
      is_admin: false,
      is_owner: false,
      is_restricted: false,
      is_ultra_restricted: false,
      is_bot: false,
      profile: { display_name: 'alice', real_name: 'Alice Archer' },
    });
    expect(await info('UBOT')).toMatchObject({ is_bot: true, profile: { bot_id: 'BBOT' } });
  });

  describe('Slack Connect: #partners is shared with Initech', () => {
    it('a person of the other organisation is answered with their own team', async () => {
      expect(await info('U9DAVE')).toMatchObject({
        team_id: 'T9INITECH',
        tz: 'Europe/Berlin',
        profile: { team: 'T9INITECH' },
      });
      const { channel } = await client.conversations.info({ channel: 'C456PARTNERS' });
      expect(channel).toMatchObject({ is_ext_shared: true, shared_team_ids: ['T1', 'T9INITECH'] });
    });

    it('their messages carry their organisation as team, user_team and source_team, in a shared-channel envelope', () => {
      const said = slack.people.says('U9DAVE', 'C456PARTNERS', '@mintlify can you <check> this & that, @alice?');
      const [mention, message] = said.events as [EventEnvelope, EventEnvelope];
      const fromInitech = { team: 'T9INITECH', user_team: 'T9INITECH', source_team: 'T9INITECH' };
      const text = '<@UBOT> can you &lt;check&gt; this &amp; that, <@U123ALICE>?';
      expect(mention).toMatchObject({ team_id: 'T1', is_ext_shared_channel: true });
      expect(mention.event).toMatchObject({ type: 'app_mention', user: 'U9DAVE', text, ...fromInitech });
      expect(message.event).toMatchObject({ type: 'message', channel_type: 'channel', text, ...fromInitech });
      expect(mention.event.client_msg_id).toBe(message.event.client_msg_id);
      expect(mention.event_id).not.toBe(message.event_id);
    });

    it('our own people carry our team there, and nothing of Slack Connect in other channels', () => {
      const [shared] = slack.people.says('U123ALICE', 'C456PARTNERS', 'hello partners').events as [EventEnvelope];
      expect(shared.event).toMatchObject({ team: 'T1', user_team: 'T1', source_team: 'T1' });
      const [inside] = slack.people.says('U123ALICE', 'C123DOCS', 'hello team').events as [EventEnvelope];
      expect(inside.is_ext_shared_channel).toBe(false);
      expect(inside.event).toMatchObject({ team: 'T1' });
      expect(inside.event).not.toHaveProperty('user_team');
    });

    it('Bolt takes their mention as the workspace’s event', async () => {
      const bolt = await startBoltApp(slack);
      const seen: string[] = [];
      bolt.app.event('app_mention', async ({ event, context }) => {
        seen.push(`${context.teamId} ${event.user} ${(event as { user_team?: string }).user_team}`);
      });
      try {
        const [mention] = slack.people.says('U9DAVE', 'C456PARTNERS', '@mintlify hi').events as [EventEnvelope];
        await httpDelivery({ appUrl: bolt.url, signingSecret: BOLT_SIGNING_SECRET }).deliver(mention);
        await eventually(() => seen.length === 1, 3_000, 'the mention');
        expect(seen).toEqual(['T1 U9DAVE T9INITECH']);
      } finally {
        await bolt.stop();
      }
    });
  });
});
