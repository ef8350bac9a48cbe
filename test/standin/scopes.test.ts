import { readFileSync } from 'node:fs';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackStandin, startSlackStandin } from '../../tools/slack-standin/index.js';
import { botScopesOf, manifestBotScopes } from '../../tools/slack-standin/scopes.js';

const manifest = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');

/** Slack refuses a call whose token lacks the method's scope; the stand-in's tokens carry the manifest's scopes. */
describe('Slack stand-in: scopes', () => {
  let slack: SlackStandin;
  const clientFor = (token: string) =>
    new webApi.WebClient(token, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });

  beforeAll(async () => {
    slack = await startSlackStandin();
  });
  afterAll(() => slack.close());

  it('gives the workspace’s bot token the bot scopes of the project’s manifest.yml', () => {
    expect(manifestBotScopes()).toEqual(botScopesOf(manifest));
    expect(manifestBotScopes()).toEqual(expect.arrayContaining(['chat:write', 'users:read']));
  });

  it('answers missing_scope with what the method needed and what the token has, as Slack does', async () => {
    slack.acceptToken('xoxb-narrow', 'bot', undefined, ['chat:write', 'im:write']);
    const narrow = clientFor('xoxb-narrow');
    await expect(narrow.chat.postMessage({ channel: 'C123DOCS', text: 'allowed' })).resolves.toMatchObject({
      ok: true,
    });
    await expect(narrow.users.info({ user: 'U456BOB' })).rejects.toMatchObject({
      data: { ok: false, error: 'missing_scope', needed: 'users:read', provided: 'chat:write,im:write' },
    });
    await expect(narrow.reactions.add({ channel: 'C123DOCS', timestamp: '1.0', name: 'eyes' })).rejects.toMatchObject({
      data: { error: 'missing_scope', needed: 'reactions:write' },
    });
    await expect(narrow.conversations.open({ users: 'U456BOB' })).resolves.toMatchObject({ ok: true });
    await expect(narrow.conversations.open({ users: 'U456BOB,U789CAROL' })).rejects.toMatchObject({
      data: { error: 'missing_scope', needed: 'mpim:write' },
    });
    await expect(narrow.auth.test()).resolves.toMatchObject({ ok: true }); // needs no scope
  });

  it('asks a conversation method for the scope of the conversation’s kind: public, private, DM', async () => {
    slack.acceptToken('xoxb-public-only', 'bot', undefined, ['channels:read', 'channels:history']);
    const client = clientFor('xoxb-public-only');
    await expect(client.conversations.info({ channel: 'C123DOCS' })).resolves.toMatchObject({ ok: true });
    await expect(client.conversations.history({ channel: 'C123DOCS' })).resolves.toMatchObject({ ok: true });
    await expect(client.conversations.info({ channel: 'G123SECRET' })).rejects.toMatchObject({
      data: { error: 'missing_scope', needed: 'groups:read' },
    });
    await expect(client.conversations.replies({ channel: 'D456BOB', ts: '1.0' })).rejects.toMatchObject({
      data: { error: 'missing_scope', needed: 'im:history' },
    });
  });

  it('asks of a group DM the mpim: scopes, whatever its id, and hides one the bot is not in', async () => {
    slack.workspace.channels.push(
      { id: 'C777GROUP', name: 'mpdm-alice--bob--carol-1', groupDm: true },
      { id: 'C778GROUP', name: 'mpdm-alice--bob-1', groupDm: true, botMember: false },
    );
    const client = clientFor(slack.workspace.botToken);
    await expect(client.conversations.info({ channel: 'C777GROUP' })).rejects.toMatchObject({
      data: { error: 'missing_scope', needed: 'mpim:read' }, // the manifest does not ask for it
    });
    await expect(client.conversations.history({ channel: 'C777GROUP', limit: 1 })).resolves.toMatchObject({ ok: true });
    await expect(client.conversations.history({ channel: 'C778GROUP', limit: 1 })).rejects.toMatchObject({
      data: { error: 'channel_not_found' },
    });
    await expect(client.chat.postMessage({ channel: 'C778GROUP', text: 'hi' })).rejects.toMatchObject({
      data: { error: 'channel_not_found' },
    });
  });

  it('wants connections:write of an app-level token, which the workspace’s has', async () => {
    // Past the scope check, refused only because no Socket Mode server is attached here.
    await expect(clientFor(slack.workspace.appToken).apps.connections.open()).rejects.toMatchObject({
      data: { error: 'not_allowed' },
    });
    slack.acceptToken('xapp-no-scopes', 'app', undefined, []);
    await expect(clientFor('xapp-no-scopes').apps.connections.open()).rejects.toMatchObject({
      data: { error: 'missing_scope', needed: 'connections:write', provided: '' },
    });
  });
});
