import { readFileSync } from 'node:fs';
import { type Answer, type Args, refuse } from './methods/answer.js';

/**
 * The scopes a Web API method needs, from Slack's method reference (granular bot scopes: `chat:write` where the
 * classic reference says `chat:write:bot`). A method reading or writing a conversation needs the scope of that
 * conversation's kind: `channels:` for a public channel, `groups:` private, `im:` a DM, `mpim:` a group DM.
 * Methods not listed need none (`auth.test`, `chat.getPermalink`, `views.*`).
 */
const NEEDS: Record<string, (args: Args, kind: ConversationKind) => string | string[]> = {
  'chat.postMessage': () => 'chat:write',
  'chat.update': () => 'chat:write',
  'chat.startStream': () => 'chat:write',
  'chat.appendStream': () => 'chat:write',
  'chat.stopStream': () => 'chat:write',
  'chat.postEphemeral': () => 'chat:write',
  'chat.unfurl': () => 'links:write',
  'conversations.info': (_, kind) => `${kind}:read`,
  'conversations.history': (_, kind) => `${kind}:history`,
  'conversations.replies': (_, kind) => `${kind}:history`,
  // The app opens DMs by person: one person is an `im`, several a group DM.
  'conversations.open': (args) => (String(args.users ?? '').includes(',') ? 'mpim:write' : 'im:write'),
  'files.getUploadURLExternal': () => 'files:write',
  'files.completeUploadExternal': () => 'files:write',
  'files.info': () => 'files:read',
  'users.info': () => 'users:read',
  // One read scope for each conversation type asked for (public channels when none are).
  'users.conversations': (args) =>
    String(args.types ?? 'public_channel')
      .split(',')
      .map((type) => TYPE_SCOPES[type.trim()] ?? 'channels:read'),
  'reactions.add': () => 'reactions:write',
  'reactions.remove': () => 'reactions:write',
  'assistant.threads.setStatus': () => 'assistant:write',
  'assistant.threads.setSuggestedPrompts': () => 'assistant:write',
  'assistant.threads.setTitle': () => 'assistant:write',
  'apps.connections.open': () => 'connections:write',
  // Thread-based agent sessions: "The chat:write scope is required" (docs.slack.dev/ai/agent-sessions).
  'agents.sessions.setStatus': () => 'chat:write',
  'agents.sessions.rename': () => 'chat:write',
};

const TYPE_SCOPES: Record<string, string> = {
  public_channel: 'channels:read',
  private_channel: 'groups:read',
  im: 'im:read',
  mpim: 'mpim:read',
};

type ConversationKind = 'channels' | 'groups' | 'im' | 'mpim';

/**
 * A conversation's kind: a group DM the workspace lists as one (`groupDm`, whatever its id), else by its id: `D…` a
 * DM, `G…` a private channel, `C…` a public one.
 */
function kind(channel: unknown, isGroupDm: (id: string) => boolean): ConversationKind {
  const id = String(channel ?? '');
  if (isGroupDm(id)) return 'mpim';
  return id.startsWith('D') ? 'im' : id.startsWith('G') ? 'groups' : 'channels';
}

/** Slack's refusal of a call its token lacks the scope for: `missing_scope`, what it needed and what it has. */
export function scopeRefusal(
  method: string,
  args: Args,
  provided: readonly string[],
  isGroupDm: (id: string) => boolean = () => false,
): Answer | undefined {
  const needs = NEEDS[method]?.(args, kind(args.channel, isGroupDm)) ?? [];
  const needed = (Array.isArray(needs) ? needs : [needs]).find((scope) => !provided.includes(scope));
  if (!needed) return undefined;
  return refuse('missing_scope', { needed, provided: provided.join(',') });
}

/** The app-level token's scope: Socket Mode connections. */
export const APP_TOKEN_SCOPES: readonly string[] = ['connections:write'];

let fromManifest: readonly string[] | undefined;
let eventsFromManifest: readonly string[] | undefined;

const manifestText = () => readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');

/**
 * The bot scopes the project's `manifest.yml` asks for (`oauth_config.scopes.bot`): what installing the app from it
 * grants its bot token, so a scope the app needs and the manifest lacks fails here as it would on Slack.
 */
export function manifestBotScopes(): readonly string[] {
  fromManifest ??= botScopesOf(manifestText());
  return fromManifest;
}

/** The `- scope` items under `oauth_config:` → `scopes:` → `bot:` of a manifest (comments skipped). */
export function botScopesOf(manifest: string): string[] {
  const lines = manifest.split('\n');
  const start = lines.findIndex((line, i) => /^ {4}bot:\s*$/.test(line) && /^ {2}scopes:\s*$/.test(lines[i - 1] ?? ''));
  if (start < 0) throw new Error('manifest.yml has no oauth_config.scopes.bot');
  const scopes: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*#/.test(line)) continue;
    const item = /^ {6}- ([\w:.-]+)\s*$/.exec(line);
    if (!item?.[1]) break;
    scopes.push(item[1]);
  }
  return scopes;
}

/** The bot events `manifest.yml` subscribes to (`settings.event_subscriptions.bot_events`): what Slack sends the app. */
export function manifestBotEvents(): readonly string[] {
  eventsFromManifest ??= botEventsOf(manifestText());
  return eventsFromManifest;
}

/** The `- event` items under `bot_events:` of a manifest (comments skipped). */
export function botEventsOf(manifest: string): string[] {
  const lines = manifest.split('\n');
  const start = lines.findIndex((line) => /^ {4}bot_events:\s*$/.test(line));
  if (start < 0) throw new Error('manifest.yml has no settings.event_subscriptions.bot_events');
  const events: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*#/.test(line)) continue;
    const item = /^ {6}- ([\w.]+)\s*$/.exec(line);
    if (!item?.[1]) break;
    events.push(item[1]);
  }
  return events;
}
