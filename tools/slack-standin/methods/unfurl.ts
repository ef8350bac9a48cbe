import { blockKitProblems } from '../block-kit.js';
import type { Tenant } from '../tenant.js';
import type { LinkShare } from '../unfurls.js';
import { type Answer, type Args, type Handler, type MethodCall, ok, refuse, text } from './answer.js';

const SOURCES = ['composer', 'conversations_history'];

/**
 * The `link_shared` a call answers: by `unfurl_id` and `source` together, or by `channel` and `ts` together
 * (docs.slack.dev chat.unfurl, "Usage info"), with Slack's errors for each way it can miss.
 */
function shareOf(args: Args, tenant: Tenant): LinkShare | Answer {
  const unfurlId = text(args.unfurl_id);
  const source = text(args.source);
  if (unfurlId !== undefined || source !== undefined) {
    if (!unfurlId) return refuse('missing_unfurl_id');
    if (!source) return refuse('missing_source');
    if (!SOURCES.includes(source)) return refuse('invalid_source');
    const share = tenant.linkShares.find((s) => s.unfurlId === unfurlId && s.source === source);
    return share ?? refuse('invalid_unfurl_id');
  }
  const channel = text(args.channel);
  const ts = text(args.ts);
  if (!channel) return refuse('missing_channel');
  if (!ts) return refuse('missing_ts');
  // A composer link_shared's own `channel` and `message_ts` (COMPOSER, its unfurl id) are accepted too (changelog
  // 2021-08 "Changes to unfurls"), though they name no message.
  if (channel === 'COMPOSER') {
    return (
      tenant.linkShares.find((s) => s.source === 'composer' && s.messageTs === ts) ?? refuse('cannot_find_message')
    );
  }
  if (!tenant.message(channel, ts)) return refuse('cannot_find_message');
  return tenant.linkShares.find((s) => s.channel === channel && s.messageTs === ts) ?? refuse('cannot_unfurl_url');
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `unfurls`: URL-encoded JSON, a map of URL → attachment (blocks or legacy fields). */
function unfurlsOf(value: unknown): { unfurls: Record<string, Record<string, unknown>> } | { refused: Answer } {
  const refused = (error: string, extra?: Record<string, unknown>) => ({ refused: refuse(error, extra) });
  if (value === undefined || value === '') return refused('missing_unfurls');
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return refused('invalid_unfurls_format');
    }
  }
  if (!isObject(parsed)) return refused('invalid_unfurls_format');
  const unfurls: Record<string, Record<string, unknown>> = {};
  for (const [url, attachment] of Object.entries(parsed)) {
    if (!isObject(attachment)) return refused('cannot_parse_attachment');
    const problems = attachment.blocks === undefined ? [] : blockKitProblems(attachment.blocks);
    if (problems.length) return refused('cannot_parse_attachment', { response_metadata: { messages: problems } });
    unfurls[url] = attachment;
  }
  return { unfurls };
}

/**
 * `chat.unfurl`: attaches the app's unfurls to the links of a `link_shared` it was sent. A URL the message does not
 * hold is `cannot_unfurl_message`; calling again for the same message replaces its attachments, adds none.
 */
function unfurl({ args, tenant }: MethodCall): Answer {
  const share = shareOf(args, tenant);
  if ('status' in share) return share;
  const parsed = unfurlsOf(args.unfurls);
  if ('refused' in parsed) return parsed.refused;
  const { unfurls } = parsed;
  if (Object.keys(unfurls).some((url) => !share.urls.includes(url))) return refuse('cannot_unfurl_message');
  Object.assign(share.unfurls, unfurls);
  return ok();
}

export const unfurlMethods: Record<string, Handler> = { 'chat.unfurl': unfurl };
