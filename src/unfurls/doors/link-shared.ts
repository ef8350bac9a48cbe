import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { firstEvent, type SeenDeps } from '../../agent/index.js';
import { accessOf, type Verdict } from '../../slack/access.js';
import { type UnfurlDeps, unfurlLinks } from '../unfurl.js';

const refusedAsExternal = (verdict: Verdict) => !verdict.allowed && verdict.reason === 'external';

type LinkSharedArgs = SlackEventMiddlewareArgs<'link_shared'> & AllMiddlewareArgs;

/**
 * `link_shared`: someone pasted links to a domain of the manifest's `unfurl_domains` (in the composer, or posted).
 * Bolt has acknowledged the event already; the docs pages among the links are unfurled with their readers, unless
 * another organisation would see them: the person is of one (and not let in, AGENT_ALLOW_EXTERNAL), or the
 * conversation is shared with one. Those get the plain preview; in a DM between people, the numbers without "Update
 * this page" (its job could not be posted there). Slack's redelivery of an event handled already
 * (same `event_id`) is dropped: it would unfurl again, spending the workspace's budget and asking the service.
 */
export async function linkShared(deps: UnfurlDeps & SeenDeps, { event, body, context }: LinkSharedArgs): Promise<void> {
  if (!(await firstEvent(deps, { eventId: body.event_id, retryNum: context.retryNum }))) return;
  const outsiders = body.is_ext_shared_channel === true || refusedAsExternal(accessOf(context));
  // A DM between people (the bot's own DM has it as a member): no job's message can ever be posted there.
  const betweenPeople = event.channel.startsWith('D') && event.is_bot_user_member === false;
  await unfurlLinks(deps, {
    plain: outsiders,
    noJobs: betweenPeople,
    channel: event.channel,
    messageTs: event.message_ts,
    unfurlId: event.unfurl_id,
    source: event.source,
    urls: event.links.map((link) => link.url),
  });
}
