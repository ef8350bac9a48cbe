import { MemoryInstallationStore, webApi } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { otherWorkspace, type SlackStandin, startSlackStandin } from '../../tools/slack-standin/index.js';
import { UMBRELLA } from '../fixtures/slack.js';
import { type BoltApp, startBoltApp } from '../support/bolt-app.js';

const REDIRECT = 'https://bot.example/slack/oauth_redirect';
/** OAuth v2 installs: the authorize page standing in for a person clicking Allow, and oauth.v2.access. */
describe('Slack stand-in: OAuth v2', () => {
  let slack: SlackStandin;
  let clock: number;
  const client = () => new webApi.WebClient(undefined, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });

  beforeAll(async () => {
    clock = Date.UTC(2026, 0, 15, 12);
    slack = await startSlackStandin(undefined, 0, { now: () => clock });
    slack.addWorkspace(otherWorkspace('T2', 'globex'));
    slack.addEnterprise(UMBRELLA, [otherWorkspace('T3', 'umbrella-east')]);
  });
  afterAll(() => slack.close());
  beforeEach(() => {
    slack.installs.app.redirectUris = [REDIRECT];
  });

  /** A person allows the app: the authorize URL, and the code and state Slack redirects back with. */
  async function authorize(query: Record<string, string>) {
    const params = new URLSearchParams({ client_id: slack.installs.app.clientId, scope: 'chat:write', ...query });
    const res = await fetch(`${slack.url}/oauth/v2/authorize?${params}`, { redirect: 'manual' });
    const location = new URL(res.headers.get('location') ?? 'http://none/');
    return { res, location, code: location.searchParams.get('code') ?? '' };
  }

  const { clientId, clientSecret } = { clientId: '1111.2222', clientSecret: 'standin-client-secret' };

  it('installs through Bolt’s own installer: /slack/install → Allow → callback, and the bot token works', async () => {
    const installations = new MemoryInstallationStore();
    const bolt: BoltApp = await startBoltApp(slack, {
      receiver: {
        clientId,
        clientSecret,
        stateSecret: 'bolt-state-secret',
        scopes: ['chat:write', 'commands'],
        installationStore: installations,
        installerOptions: {
          directInstall: true,
          authorizationUrl: `${slack.url}/oauth/v2/authorize`,
          clientOptions: { slackApiUrl: slack.apiUrl },
        },
      },
    });
    try {
      slack.installs.app.redirectUris = [`${bolt.url}/slack/oauth_redirect`];
      slack.installs.nextInstall({ teamId: 'T2', userId: 'U2LEO' });
      const start = await fetch(`${bolt.url}/slack/install`, { redirect: 'manual' });
      const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const allow = await fetch(start.headers.get('location') ?? '', { redirect: 'manual' });
      expect(allow.status).toBe(302);
      const back = await fetch(allow.headers.get('location') ?? '', { headers: { cookie } });
      expect(back.status).toBe(200);

      const installation = await installations.fetchInstallation({
        teamId: 'T2',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(installation).toMatchObject({
        team: { id: 'T2', name: 'Globex' },
        user: { id: 'U2LEO' },
        bot: { userId: 'U2BOT', id: 'B2BOT', scopes: ['chat:write', 'commands'] },
        isEnterpriseInstall: false,
      });
      const token = installation.bot?.token as string;
      expect(token).toMatch(/^xoxb-T2-/);
      expect(token).not.toBe('xoxb-globex-token');
      const bot = new webApi.WebClient(token, { slackApiUrl: slack.apiUrl });
      await expect(bot.auth.test()).resolves.toMatchObject({ team_id: 'T2', bot_id: 'B2BOT' });
      await bot.chat.postMessage({ channel: 'C2GENERAL', text: 'installed' });
      expect(slack.tenant('T2').messages.at(-1)).toMatchObject({ text: 'installed' });
    } finally {
      await bolt.stop();
    }
  });

  it('answers the v2 shape, taking the client credentials in the body or by HTTP Basic auth', async () => {
    slack.installs.nextInstall({ teamId: 'T2', userId: 'U2ANA' });
    const { location, code } = await authorize({ state: 's1', scope: 'chat:write,users:read' });
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('s1');
    const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
    const res = await fetch(`${slack.apiUrl}oauth.v2.access`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ code }).toString(),
    });
    expect(await res.json()).toEqual({
      ok: true,
      app_id: 'A1',
      authed_user: { id: 'U2ANA' },
      scope: 'chat:write,users:read',
      token_type: 'bot',
      access_token: expect.stringMatching(/^xoxb-/),
      bot_user_id: 'U2BOT',
      team: { id: 'T2', name: 'Globex' },
      enterprise: null,
      is_enterprise_install: false,
    });
  });

  it('gives the bot token exactly the scopes the person allowed: another method answers missing_scope', async () => {
    slack.installs.nextInstall({ teamId: 'T2', userId: 'U2ANA' });
    const { code } = await authorize({ scope: 'chat:write' });
    const access = await client().oauth.v2.access({ client_id: clientId, client_secret: clientSecret, code });
    const bot = new webApi.WebClient(access.access_token, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    await expect(bot.chat.postMessage({ channel: 'C2DOCS', text: 'hi' })).resolves.toMatchObject({ ok: true });
    await expect(bot.users.info({ user: 'U2ANA' })).rejects.toMatchObject({
      data: { ok: false, error: 'missing_scope', needed: 'users:read', provided: 'chat:write' },
    });
  });

  it('installs where Slack’s team parameter says when no install is armed, else in the default workspace', async () => {
    const exchange = async (query: Record<string, string>) => {
      const { code } = await authorize(query);
      return client().oauth.v2.access({ client_id: clientId, client_secret: clientSecret, code });
    };
    await expect(exchange({ team: 'T2' })).resolves.toMatchObject({ team: { id: 'T2' }, authed_user: { id: 'U2ANA' } });
    await expect(exchange({ team: 'T0UNKNOWN' })).resolves.toMatchObject({ team: { id: 'T1' } });
  });

  it.each([
    ['a wrong secret', { client_secret: 'nope' }, 'bad_client_secret'],
    ['an unknown client', { client_id: '9.9' }, 'invalid_client_id'],
    ['an unknown code', { code: 'T1.1.abc' }, 'invalid_code'],
    ['another redirect_uri', { redirect_uri: 'https://bot.example/other' }, 'bad_redirect_uri'],
  ])('refuses %s', async (_, override, error) => {
    const { code } = await authorize({ redirect_uri: REDIRECT });
    await expect(
      client().oauth.v2.access({
        client_id: clientId,
        client_secret: clientSecret,
        code,
        redirect_uri: REDIRECT,
        ...override,
      }),
    ).rejects.toMatchObject({ data: { ok: false, error } });
  });

  it('takes a code once, within ten minutes, and wants the redirect_uri the authorize request named', async () => {
    const exchange = (code: string, redirect_uri?: string) =>
      client().oauth.v2.access({
        client_id: clientId,
        client_secret: clientSecret,
        code,
        ...(redirect_uri && { redirect_uri }),
      });
    const first = await authorize({ redirect_uri: REDIRECT });
    await expect(exchange(first.code)).rejects.toMatchObject({ data: { error: 'bad_redirect_uri' } });
    await expect(exchange(first.code, REDIRECT)).resolves.toMatchObject({ ok: true });
    await expect(exchange(first.code, REDIRECT)).rejects.toMatchObject({ data: { error: 'invalid_code' } });
    const late = await authorize({});
    clock += 11 * 60_000;
    await expect(exchange(late.code)).rejects.toMatchObject({ data: { error: 'invalid_code' } });
  });

  it('stays on an error page for an unknown client or redirect_uri, and redirects a Cancel with access_denied', async () => {
    const badRedirect = await authorize({ redirect_uri: 'https://evil.example/cb' });
    expect(badRedirect.res.status).toBe(200);
    expect(badRedirect.res.headers.get('location')).toBeNull();
    expect(await badRedirect.res.text()).toContain('redirect_uri did not match any configured URIs');
    const badClient = await authorize({ client_id: '0.0' });
    expect(await badClient.res.text()).toContain('Invalid client_id parameter');
    slack.installs.nextInstall({ deny: true });
    const cancelled = await authorize({ state: 's2' });
    expect(Object.fromEntries(cancelled.location.searchParams)).toEqual({ error: 'access_denied', state: 's2' });
  });

  it('installs org-wide for an organisation: no team, the enterprise, a token serving its workspaces', async () => {
    slack.installs.nextInstall({ enterpriseId: 'E1UMBRELLA', userId: 'U3ANA' });
    const { code } = await authorize({});
    const granted = await client().oauth.v2.access({ client_id: clientId, client_secret: clientSecret, code });
    expect(granted).toMatchObject({
      team: null,
      enterprise: { id: 'E1UMBRELLA', name: 'Umbrella' },
      is_enterprise_install: true,
      bot_user_id: 'UORGBOT',
    });
    const org = new webApi.WebClient(granted.access_token, { slackApiUrl: slack.apiUrl });
    await org.chat.postMessage({ channel: 'C3DOCS', text: 'org-wide' });
    expect(slack.tenant('T3').messages.at(-1)).toMatchObject({ text: 'org-wide' });
  });

  it('with token rotation on: an expiring xoxe token and a refresh token, each refresh token good once', async () => {
    slack.rotation.enabled = true;
    try {
      slack.installs.nextInstall({ teamId: 'T2', userId: 'U2ANA' });
      const { code } = await authorize({});
      const granted = await client().oauth.v2.access({ client_id: clientId, client_secret: clientSecret, code });
      expect(granted).toMatchObject({ token_type: 'bot', expires_in: 43_200, team: { id: 'T2' } });
      expect(granted.access_token).toMatch(/^xoxe\.xoxb-/);
      expect(granted.refresh_token).toMatch(/^xoxe-1-/);
      const bot = (token?: string) =>
        new webApi.WebClient(token, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
      await expect(bot(granted.access_token).auth.test()).resolves.toMatchObject({ team_id: 'T2' });

      const refresh = (refresh_token?: string) =>
        client().oauth.v2.access({
          client_id: clientId,
          client_secret: clientSecret,
          grant_type: 'refresh_token',
          refresh_token,
        });
      const renewed = await refresh(granted.refresh_token);
      expect(renewed).toMatchObject({
        token_type: 'bot',
        expires_in: 43_200,
        team: { id: 'T2' },
        bot_user_id: 'U2BOT',
      });
      expect(renewed.access_token).not.toBe(granted.access_token);
      await expect(refresh(granted.refresh_token)).rejects.toMatchObject({ data: { error: 'invalid_refresh_token' } });

      clock += 43_200_000; // twelve hours later
      await expect(bot(renewed.access_token).auth.test()).rejects.toMatchObject({ data: { error: 'token_expired' } });
      const next = await refresh(renewed.refresh_token);
      await expect(bot(next.access_token).auth.test()).resolves.toMatchObject({ team_id: 'T2' });
    } finally {
      slack.rotation.enabled = false;
    }
  });
});
