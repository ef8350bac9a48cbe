import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { type UnfurlDeps, unfurlLinks } from '../unfurl.js';

type LinkSharedArgs = SlackEventMiddlewareArgs<'link_shared'> & AllMiddlewareArgs;

/**
 * `link_shared`: someone pasted links to a domain of the manifest's `unfurl_domains` (in the composer, or posted).
 * Bolt has acknowledged the event already; the docs pages among the links are unfurled with their readers.
 */
export async function linkShared(deps: UnfurlDeps, { event }: LinkSharedArgs): Promise<void> {
  await unfurlLinks(deps, {
    channel: event.channel,
    messageTs: event.message_ts,
    unfurlId: event.unfurl_id,
    source: event.source,
    urls: event.links.map((link) => link.url),
  });
}
