import type { IncomingMessage } from 'node:http';
import { withFault } from './faults.js';
import { serveFile, signInPage } from './files.js';
import { parseArgs, ratelimited, readBody, responseUrl, uploadedContent } from './http.js';
import { type Answer, type Args, ok } from './methods/answer.js';
import { METHODS } from './methods/index.js';
import { routeToken } from './routing.js';
import { scopeRefusal } from './scopes.js';
import type { SlackCall, SlackStandin } from './server.js';

/**
 * Every request to the stand-in: the authorize page, file downloads and the sign-in page, then calls it records
 * (Web API methods, `response_url` posts, file uploads), each meeting an armed fault or answered as Slack would.
 */
export async function handleRequest(slack: SlackStandin, req: IncomingMessage): Promise<Answer> {
  const raw = await readBody(req);
  const url = new URL(req.url ?? '/', 'http://x');
  const path = url.pathname;
  if (path === '/oauth/v2/authorize') return slack.installs.authorize(url.searchParams);
  if (path.startsWith('/files-pri/')) return serveFile(slack, req, path);
  if (path === '/' && url.searchParams.has('redir')) return signInPage();
  const method = path.startsWith('/api/')
    ? path.slice(5)
    : path.startsWith('/respond/')
      ? `response_url:${path.slice(9)}`
      : path.startsWith('/upload/')
        ? 'file_upload'
        : path;
  const args = method === 'file_upload' ? { content: raw.toString('utf8') } : parseArgs(req, raw, url);
  const call: SlackCall = { method, args, at: Date.now() };
  slack.calls.push(call);
  // The call keeps the raw body; the stored file gets the content (files.uploadV2 sends multipart form data).
  const answerArgs = method === 'file_upload' ? await uploadedContent(req, raw) : args;
  const answer = () => answerCall(slack, call, answerArgs, req, path);
  const fault = slack.faults.take(method, args);
  return fault ? withFault(fault, answer) : answer();
}

function answerCall(slack: SlackStandin, call: SlackCall, args: Args, req: IncomingMessage, path: string): Answer {
  const { method } = call;
  if (method.startsWith('response_url:')) return responseUrl(args, slack.refusedBlocks);
  if (method === 'file_upload') return upload(slack, args, path);
  if (!path.startsWith('/api/')) return { status: 404, headers: {}, body: { ok: false, error: 'not_found' } };
  if (method === 'oauth.v2.access') return slack.installs.access(args, req);
  const routed = routeToken(slack, method, args, req);
  if ('status' in routed) return routed;
  call.teamId = routed.tenant.teamId;
  const unscoped = scopeRefusal(method, args, routed.scopes, (id) => routed.tenant.channel(id)?.groupDm === true);
  if (unscoped) return unscoped;
  const channel = args.channel ?? args.channel_id;
  const wait = slack.rateLimits.take(method, routed.tenant.teamId, typeof channel === 'string' ? channel : undefined);
  if (wait !== undefined) return ratelimited(wait);
  const handler = METHODS[method];
  return handler ? handler({ method, args, slack, ...routed }) : ok();
}

/** Step 2 of `files.uploadV2`: the bytes, posted to the upload URL. */
function upload(slack: SlackStandin, args: Args, path: string): Answer {
  const file = [...slack.tenants.values()].flatMap((t) => t.files).find((f) => path.endsWith(`/${f.id}`));
  if (!file) return { status: 404, headers: {}, body: { ok: false, error: 'file_not_found' } };
  file.content = String(args.content);
  if (Buffer.isBuffer(args.bytes)) file.bytes = args.bytes;
  return ok();
}
