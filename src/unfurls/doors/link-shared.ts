import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { accessOf, type Verdict } from '../../slack/access.js';
import { type UnfurlDeps, unfurlLinks } from '../unfurl.js';

const refusedAsExternal = (verdict: Verdict) => !verdict.allowed && verdict.reason === 'external';

type LinkSharedArgs = SlackEventMiddlewareArgs<'link_shared'> & AllMiddlewareArgs;

/**
 * `link_shared`: someone pasted links to a domain of the manifest's `unfurl_domains` (in the composer, or posted).
 * Bolt has acknowledged the event already; the docs pages among the links are unfurled with their readers, unless
 * another organisation would see them: the person is of one (and not let in, AGENT_ALLOW_EXTERNAL), or the
 * conversation is shared with one. Those get the plain preview.
 */
export async function linkShared(deps: UnfurlDeps, { event, body, context }: LinkSharedArgs): Promise<void> {
  const outsiders = body.is_ext_shared_channel === true || refusedAsExternal(accessOf(context));
  await unfurlLinks(deps, {
    plain: outsiders,
    channel: event.channel,
    messageTs: event.message_ts,
    unfurlId: event.unfurl_id,
    source: event.source,
    urls: event.links.map((link) => link.url),
  });
}
