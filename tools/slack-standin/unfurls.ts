import { readFileSync } from 'node:fs';
import { type EventEnvelope, eventEnvelope } from './events.js';
import type { SlackStandin } from './server.js';
import type { StoredMessage, Tenant } from './tenant.js';

/**
 * App unfurling (docs.slack.dev "Unfurling links in messages"): a person posts a message with links to a domain of
 * the app's `unfurl_domains`; Slack delivers the `message` and a `link_shared` event naming those links, and keeps
 * what the app answers with `chat.unfurl` (`methods/unfurl.ts`) on the message, one attachment per link.
 */

/** A `link_shared` Slack sent: the links it named, and the unfurls the app attached since (by URL). */
export interface LinkShare {
  unfurlId: string;
  source: 'composer' | 'conversations_history';
  channel: string;
  messageTs: string;
  urls: string[];
  unfurls: Record<string, Record<string, unknown>>;
}

let fromManifest: readonly string[] | undefined;

/** The domains of the project's `manifest.yml` (`features.unfurl_domains`): what Slack sends `link_shared` for. */
export function manifestUnfurlDomains(): readonly string[] {
  fromManifest ??= unfurlDomainsOf(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));
  return fromManifest;
}

/** The `- domain` items under `features:` → `unfurl_domains:` (none when the manifest has no such list). */
export function unfurlDomainsOf(manifest: string): string[] {
  const lines = manifest.split('\n');
  const start = lines.findIndex((line) => /^ {2}unfurl_domains:\s*$/.test(line));
  if (start < 0) return [];
  const domains: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*#/.test(line)) continue;
    const item = /^ {4}- ([\w.-]+)\s*$/.exec(line);
    if (!item?.[1]) break;
    domains.push(item[1].toLowerCase());
  }
  return domains;
}

/** The links of a message's wire text (`<https://…>` or `<https://…|label>`), in order, each once. */
export function linksIn(wire: string): string[] {
  const links = [...wire.matchAll(/<(https?:\/\/[^|>\s]+)(?:\|[^>]*)?>/g)].map((m) => m[1] ?? '');
  return [...new Set(links.map((link) => link.replace(/&amp;/g, '&')))];
}

/** The registered domain a link's host falls under (the domain itself or a subdomain of it), if any. */
export function unfurlDomainOf(url: string, domains: readonly string[]): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const host = new URL(url).hostname.toLowerCase();
  return domains.find((domain) => host === domain || host.endsWith(`.${domain}`));
}

/**
 * The `link_shared` Slack sends while `user` is still typing `wire` in the composer (docs.slack.dev changelog
 * 2021-08, "Changes to unfurls"): `channel` is `COMPOSER` and `message_ts` is the unfurl's id, valid for nothing
 * but `chat.unfurl` with `source: composer`. Undefined when no link is to an unfurl domain.
 */
export function composerLinkShared(
  slack: SlackStandin,
  tenant: Tenant,
  user: string,
  wire: string,
): EventEnvelope | undefined {
  const links = unfurlLinks(slack, wire);
  if (links.length === 0) return undefined;
  const unfurlId = `${user}-${slack.nextId()}`;
  const share: LinkShare = {
    unfurlId,
    source: 'composer',
    channel: 'COMPOSER',
    messageTs: unfurlId,
    urls: links.map((link) => link.url),
    unfurls: {},
  };
  tenant.linkShares.push(share);
  return eventEnvelope(tenant, {
    type: 'link_shared',
    channel: 'COMPOSER',
    is_bot_user_member: true,
    user,
    message_ts: unfurlId,
    unfurl_id: unfurlId,
    source: 'composer',
    links,
    event_ts: unfurlId,
  });
}

/**
 * The links of `wire` to a domain of the app's `unfurl_domains`, with the domain each matched; none when the app
 * does not subscribe to `link_shared`.
 */
function unfurlLinks(slack: SlackStandin, wire: string): { domain: string; url: string }[] {
  if (!slack.subscriptions.has('link_shared')) return [];
  return linksIn(wire).flatMap((url) => {
    const domain = unfurlDomainOf(url, slack.unfurlDomains);
    return domain ? [{ domain, url }] : [];
  });
}

/**
 * The `link_shared` event for a posted message, when it links to an unfurl domain (the app's own messages and
 * bots' never get one): recorded on the workspace so `chat.unfurl` can answer it.
 */
export function linkSharedEvent(
  slack: SlackStandin,
  tenant: Tenant,
  message: StoredMessage & { user: string },
): EventEnvelope | undefined {
  const links = unfurlLinks(slack, message.text ?? '');
  if (links.length === 0 || message.user === tenant.workspace.botUserId) return undefined;
  const share: LinkShare = {
    unfurlId: `${message.channel}.${message.ts.replace('.', '')}.${slack.nextId()}`,
    source: 'conversations_history',
    channel: message.channel,
    messageTs: message.ts,
    urls: links.map((link) => link.url),
    unfurls: {},
  };
  tenant.linkShares.push(share);
  return eventEnvelope(
    tenant,
    {
      type: 'link_shared',
      channel: message.channel,
      is_bot_user_member: tenant.channel(message.channel)?.botMember !== false,
      user: message.user,
      message_ts: message.ts,
      unfurl_id: share.unfurlId,
      ...(message.thread_ts && { thread_ts: message.thread_ts }),
      source: share.source,
      links,
      event_ts: message.ts,
    },
    !!tenant.channel(message.channel)?.sharedWith?.length,
  );
}
