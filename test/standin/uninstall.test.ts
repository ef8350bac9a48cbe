import { webApi } from '@slack/bolt';
import type { AuthTeamsListResponse } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type EventDelivery,
  httpDelivery,
  otherWorkspace,
  type SlackStandin,
  type SocketModeStandin,
  socketDelivery,
  startSlackStandin,
  startSocketModeStandin,
} from '../../tools/slack-standin/index.js';
import { UMBRELLA } from '../fixtures/slack.js';
import { BOLT_SIGNING_SECRET, type BoltApp, startBoltApp } from '../support/bolt-app.js';
import { eventually } from '../support/test-app.js';

/** What Bolt saw: each event's type, team and retry number. */
interface Seen {
  type: string;
  teamId: unknown;
  eventId: unknown;
  retryNum: unknown;
}

describe.each(['HTTP', 'Socket Mode'])('Slack stand-in: uninstalls, delivered over %s', (transport) => {
  let slack: SlackStandin;
  let socket: SocketModeStandin | undefined;
  let bolt: BoltApp;
  let delivery: EventDelivery;
  const seen: Seen[] = [];
  const post = (token: string) =>
    new webApi.WebClient(token, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }).chat.postMessage({
      channel: 'C2DOCS',
      text: 'still here?',
    });

  beforeEach(async () => {
    seen.length = 0;
    slack = await startSlackStandin();
    slack.addWorkspace(otherWorkspace('T2', 'globex'));
    socket = transport === 'Socket Mode' ? await startSocketModeStandin(slack) : undefined;
    bolt = await startBoltApp(slack, { socket: !!socket });
    for (const type of ['tokens_revoked', 'app_uninstalled', 'team_access_revoked'] as const) {
      bolt.app.event(type, async ({ body, context }) => {
        seen.push({ type, teamId: body.team_id, eventId: body.event_id, retryNum: context.retryNum });
      });
    }
    delivery = socket ? socketDelivery(socket) : httpDelivery({ appUrl: bolt.url, signingSecret: BOLT_SIGNING_SECRET });
  });
  afterEach(async () => {
    await bolt.stop();
    // Bolt's stop does not wait for the socket to close.
    await eventually(() => !socket?.connected, 3_000, 'the socket closed');
    await socket?.close();
    await slack.close();
  });

  it('sends tokens_revoked then app_uninstalled, and refuses the workspace’s bot token from then on', async () => {
    await expect(post('xoxb-globex-token')).resolves.toMatchObject({ ok: true });
    const events = slack.installs.uninstall('T2');
    expect(events.map((e) => e.event)).toEqual([
      { type: 'tokens_revoked', tokens: { bot: ['U2BOT'] }, event_ts: expect.stringMatching(/^\d+\.\d{6}$/) },
      { type: 'app_uninstalled', event_ts: expect.stringMatching(/^\d+\.\d{6}$/) },
    ]);
    expect(events[1]).toMatchObject({ team_id: 'T2', authorizations: [{ team_id: 'T2', is_bot: true }] });
    for (const event of events) await delivery.deliver(event);
    await eventually(() => seen.length === 2, 3_000, 'both events');
    expect(seen.map(({ type, teamId }) => `${type} ${teamId}`)).toEqual(['tokens_revoked T2', 'app_uninstalled T2']);

    await expect(post('xoxb-globex-token')).rejects.toMatchObject({ data: { error: 'account_inactive' } });
    // The other workspace is untouched.
    await expect(post(slack.workspace.botToken)).resolves.toMatchObject({ ok: true });
  });

  it('redelivers an uninstall as Slack retries it: same event_id, its retry number', async () => {
    const [, uninstalled] = slack.installs.uninstall('T2');
    if (!uninstalled) throw new Error('no app_uninstalled');
    await delivery.deliver(uninstalled);
    await delivery.deliver(uninstalled, 1);
    await eventually(() => seen.length === 2, 3_000, 'the event and its retry');
    expect(seen.map((s) => s.eventId)).toEqual([uninstalled.event_id, uninstalled.event_id]);
    expect(seen[1]?.retryNum).toBe(1);
  });

  it('takes an org-wide install out of some workspaces: team_access_revoked, the org token refused only there', async () => {
    slack.addEnterprise(UMBRELLA, [otherWorkspace('T5', 'umbrella-east'), otherWorkspace('T6', 'umbrella-west')]);
    // Sent only to an app subscribed to it: the shipped manifest (a workspace app) is not.
    expect(slack.installs.revokeTeamAccess(UMBRELLA.id, ['T5'])).toEqual([]);
    slack.subscriptions.add('team_access_revoked');
    const events = slack.installs.revokeTeamAccess(UMBRELLA.id, ['T5']);
    expect(events.map((e) => e.event)).toEqual([
      { type: 'team_access_revoked', team_ids: ['T5'], event_ts: expect.stringMatching(/^\d+\.\d{6}$/) },
    ]);
    expect(events[0]).toMatchObject({ enterprise_id: UMBRELLA.id, authorizations: [{ is_enterprise_install: true }] });
    for (const event of events) await delivery.deliver(event);
    await eventually(() => seen.length === 1, 3_000, 'team_access_revoked');
    expect(seen[0]).toMatchObject({ type: 'team_access_revoked' });
    const org = new webApi.WebClient(UMBRELLA.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    await expect(org.auth.test()).resolves.toMatchObject({ ok: true, team_id: UMBRELLA.id });
    const postIn = (team: string) => org.apiCall('chat.postMessage', { channel: 'C2DOCS', text: 'hi', team_id: team });
    await expect(postIn('T5')).rejects.toMatchObject({ data: { error: 'team_access_not_granted' } });
    await expect(postIn('T6')).resolves.toMatchObject({ ok: true });
    // Named by its channel or person alone, as the app's posts and look-ups are.
    const refused = { data: { error: 'team_access_not_granted' } };
    await expect(org.chat.postMessage({ channel: 'C5DOCS', text: 'hi' })).rejects.toMatchObject(refused);
    await expect(org.users.info({ user: 'U5LEO' })).rejects.toMatchObject(refused);
    await expect(org.chat.postMessage({ channel: 'C6DOCS', text: 'hi' })).resolves.toMatchObject({ ok: true });
  });

  it('auth.teams.list: the workspaces the org token reaches, paged; taken out and added back', async () => {
    const three = ['T5', 'T6', 'T7'].map((team) => otherWorkspace(team, `umbrella-${team}`));
    slack.addEnterprise(UMBRELLA, three);
    const org = new webApi.WebClient(UMBRELLA.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    const ids = async () => {
      const listed: string[] = [];
      for await (const page of org.paginate('auth.teams.list', { limit: 2 })) {
        listed.push(...((page as AuthTeamsListResponse).teams ?? []).map((t) => String(t.id)));
      }
      return listed;
    };
    const first = await org.auth.teams.list({ limit: 2 });
    expect(first.teams?.map((t) => t.id)).toEqual(['T5', 'T6']);
    expect(first.response_metadata?.next_cursor).not.toBe('');
    expect(await ids()).toEqual(['T5', 'T6', 'T7']);
    await expect(org.auth.teams.list({ limit: 1001 })).rejects.toMatchObject({ data: { error: 'invalid_limit' } });
    await expect(org.auth.teams.list({ cursor: 'nonsense' })).rejects.toMatchObject({
      data: { error: 'invalid_cursor' },
    });
    slack.installs.revokeTeamAccess(UMBRELLA.id, ['T6']);
    expect(await ids()).toEqual(['T5', 'T7']);
    slack.subscriptions.add('team_access_granted');
    const granted = slack.installs.grantTeamAccess(UMBRELLA.id, ['T6']);
    expect(granted.map((e) => e.event)).toEqual([
      { type: 'team_access_granted', team_ids: ['T6'], event_ts: expect.stringMatching(/^\d+\.\d{6}$/) },
    ]);
    expect(await ids()).toEqual(['T5', 'T6', 'T7']);
  });

  it('refuses a revoked token with token_revoked', async () => {
    const events = slack.installs.revokeTokens('T2');
    for (const event of events) await delivery.deliver(event);
    await eventually(() => seen.length === 1, 3_000, 'tokens_revoked');
    await expect(post('xoxb-globex-token')).rejects.toMatchObject({ data: { error: 'token_revoked' } });
  });
});
