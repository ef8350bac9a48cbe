import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EventEnvelope,
  httpDelivery,
  otherWorkspace,
  type SlackStandin,
  startSlackStandin,
  viaInstallation,
} from '../../tools/slack-standin/index.js';
import { UMBRELLA } from '../fixtures/slack.js';
import { BOLT_SIGNING_SECRET, type BoltApp, startBoltApp } from '../support/bolt-app.js';
import { eventually } from '../support/test-app.js';

/** Several workspaces behind one stand-in, each reached with its own token; an Enterprise Grid org-wide install. */
describe('Slack stand-in: several workspaces', () => {
  let slack: SlackStandin;
  const clientFor = (token: string) =>
    new webApi.WebClient(token, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });

  beforeAll(async () => {
    slack = await startSlackStandin();
    slack.addWorkspace(otherWorkspace('T2', 'globex'));
    const west = otherWorkspace('T4', 'umbrella-west');
    west.users = west.users.map((u) => (u.id === 'U4ANA' ? { ...u, isAdmin: true } : u));
    west.users.push({ id: 'U4OLGA', name: 'olga', realName: 'Olga', displayName: 'olga', isOrgAdmin: true });
    slack.addEnterprise(UMBRELLA, [otherWorkspace('T3', 'umbrella-east'), west]);
  });
  afterAll(() => slack.close());

  it('routes every call by its token: each workspace keeps its own messages, people and views', async () => {
    const acme = clientFor(slack.workspace.botToken);
    const globex = clientFor('xoxb-globex-token');
    const ours = await acme.chat.postMessage({ channel: 'C123DOCS', text: 'for Acme' });
    const theirs = await globex.chat.postMessage({ channel: 'C2DOCS', text: 'for Globex' });
    await globex.views.publish({ user_id: 'U2ANA', view: { type: 'home', blocks: [] } });

    expect(slack.messages.map((m) => m.text)).toContain('for Acme');
    expect(slack.messages.map((m) => m.text)).not.toContain('for Globex');
    expect(slack.tenant('T2').messages).toMatchObject([{ channel: 'C2DOCS', text: 'for Globex', user: 'U2BOT' }]);
    expect(slack.tenant('T2').views).toMatchObject([{ via: 'views.publish', user_id: 'U2ANA' }]);
    expect(slack.views).toHaveLength(0);
    expect(slack.callsTo('chat.postMessage').map((c) => c.teamId)).toEqual(['T1', 'T2']);
    // A workspace cannot read another's messages.
    const crossRead = await acme.conversations.replies({ channel: 'C2DOCS', ts: theirs.ts as string });
    expect(crossRead.messages).toEqual([]);
    expect(ours.message?.bot_id).toBe('BBOT');
    expect(theirs.message?.bot_id).toBe('B2BOT');
  });

  it('answers auth.test and users.info for the token’s workspace only', async () => {
    const globex = clientFor('xoxb-globex-token');
    await expect(globex.auth.test()).resolves.toMatchObject({
      team_id: 'T2',
      user_id: 'U2BOT',
      bot_id: 'B2BOT',
      url: 'https://globex.slack.com/',
      is_enterprise_install: false,
    });
    await expect(globex.users.info({ user: 'U2ANA' })).resolves.toMatchObject({ user: { team_id: 'T2' } });
    await expect(globex.users.info({ user: 'U123ALICE' })).rejects.toMatchObject({ data: { error: 'user_not_found' } });
  });

  it('serves an organisation’s workspaces with its one org-wide token, routed by channel or team_id', async () => {
    const org = clientFor(UMBRELLA.botToken);
    await org.chat.postMessage({ channel: 'C3DOCS', text: 'east' });
    await org.chat.postMessage({ channel: 'C4DOCS', text: 'west' });
    expect(slack.tenant('T3').messages.map((m) => m.text)).toEqual(['east']);
    expect(slack.tenant('T4').messages).toMatchObject([{ text: 'west', user: 'UORGBOT', bot_id: 'BORGBOT' }]);
    await expect(org.users.info({ user: 'U4LEO', team_id: 'T4' } as never)).resolves.toMatchObject({
      user: { team_id: 'T4', enterprise_user: { enterprise_id: 'E1UMBRELLA' } },
    });
    // A workspace's admin is not the organisation's: `is_admin` is the workspace's role, `enterprise_user` the org's.
    await expect(org.users.info({ user: 'U4ANA' })).resolves.toMatchObject({
      user: { is_admin: true, enterprise_user: { is_admin: false, is_owner: false } },
    });
    await expect(org.users.info({ user: 'U4OLGA' })).resolves.toMatchObject({
      user: { is_admin: false, enterprise_user: { is_admin: true } },
    });
    await expect(org.auth.test()).resolves.toMatchObject({
      team_id: 'E1UMBRELLA',
      enterprise_id: 'E1UMBRELLA',
      is_enterprise_install: true,
      url: 'https://umbrella.enterprise.slack.com/',
      user_id: 'UORGBOT',
    });
  });

  it('delivers a Slack Connect event through the installation Slack names, the author’s team kept', () => {
    const [mention] = slack.people.says('U9DAVE', 'C456PARTNERS', '@Mintlify hello').events;
    if (!mention) throw new Error('no event');
    const via = viaInstallation(slack.tenant('T2'), mention);
    expect(via).toMatchObject({
      team_id: 'T2',
      event_id: mention.event_id,
      is_ext_shared_channel: true,
      authorizations: [{ team_id: 'T2', user_id: 'U2BOT' }],
      event: { user: 'U9DAVE', user_team: 'T9INITECH' },
    });
    expect(via.event).toEqual(mention.event);
  });

  describe('events from an organisation’s workspace, through Bolt', () => {
    let bolt: BoltApp;
    const authorized: {
      teamId?: string | undefined;
      enterpriseId?: string | undefined;
      isEnterpriseInstall?: boolean;
    }[] = [];
    const mentions: string[] = [];

    beforeAll(async () => {
      bolt = await startBoltApp(slack, {
        authorize: async ({ teamId, enterpriseId, isEnterpriseInstall }) => {
          authorized.push({ teamId, enterpriseId, isEnterpriseInstall });
          return { botToken: UMBRELLA.botToken, botUserId: UMBRELLA.botUserId, botId: UMBRELLA.botId };
        },
      });
      bolt.app.event('app_mention', async ({ event, context }) => {
        mentions.push(`${context.teamId}/${context.enterpriseId}: ${event.text}`);
      });
    });
    afterAll(() => bolt.stop());

    it('carry enterprise_id and team_id, and say the install is org-wide, as Bolt needs to authorize them', async () => {
      const said = slack.people.says('U3ANA', 'C3DOCS', '@mintlify hello from the east');
      const [mention] = said.events as [EventEnvelope];
      expect(mention).toMatchObject({
        team_id: 'T3',
        enterprise_id: 'E1UMBRELLA',
        authorizations: [
          { enterprise_id: 'E1UMBRELLA', team_id: null, user_id: 'UORGBOT', is_enterprise_install: true },
        ],
        event: { type: 'app_mention', team: 'T3', text: '<@UORGBOT> hello from the east' },
      });
      const http = httpDelivery({ appUrl: bolt.url, signingSecret: BOLT_SIGNING_SECRET });
      await http.deliver(mention);
      await eventually(() => mentions.length === 1, 3_000, 'the mention');
      expect(authorized[0]).toEqual({ teamId: 'T3', enterpriseId: 'E1UMBRELLA', isEnterpriseInstall: true });
      expect(mentions).toEqual(['T3/E1UMBRELLA: <@UORGBOT> hello from the east']);
    });
  });
});
