import type { IncomingMessage } from 'node:http';
import { type Answer, type Args, refuse } from './methods/answer.js';
import type { SlackStandin } from './server.js';
import type { Tenant } from './tenant.js';
import type { Enterprise } from './workspace.js';

/** Methods that take the app-level token (`xapp-`); every other method takes a bot (or user) token. */
const APP_TOKEN_METHODS = new Set(['apps.connections.open']);

/**
 * The workspace a Web API call acts in, from its token (an `Authorization: Bearer` header or a `token` argument), or
 * Slack's refusal: `not_authed` without one, `invalid_auth` for one Slack never issued, the refusal of a revoked one
 * (`token_revoked`, `account_inactive`), `not_allowed_token_type` for the wrong kind. An org-wide token acts in the
 * workspace its `team_id` names, else the one holding the channel or person the call is about, else the first; a call
 * naming (or only about) a workspace the install was taken out of is refused there with `team_access_not_granted`.
 */
export function routeToken(
  slack: SlackStandin,
  method: string,
  args: Args,
  req: IncomingMessage,
): { tenant: Tenant; org?: Enterprise; scopes: readonly string[] } | Answer {
  const header = req.headers.authorization;
  const token = header?.startsWith('Bearer ')
    ? header.slice(7)
    : typeof args.token === 'string'
      ? args.token
      : undefined;
  if (!token) return refuse('not_authed');
  const state = slack.tokens.get(token);
  if (!state) return refuse('invalid_auth');
  const refused = slack.tokens.refusal(token, slack.now());
  if (refused) return refuse(refused);
  const wantsApp = APP_TOKEN_METHODS.has(method);
  if ((state.kind === 'app') !== wantsApp) return refuse('not_allowed_token_type');
  if ('teamId' in state.owner) {
    const tenant = slack.tenants.get(state.owner.teamId);
    return tenant ? { tenant, scopes: state.scopes } : refuse('invalid_auth');
  }
  const org = slack.enterprises.get(state.owner.enterpriseId);
  const tenants = [...slack.tenants.values()].filter((t) => t.orgInstall && t.orgInstall === org);
  const [first] = tenants;
  if (!org || !first) return refuse('invalid_auth');
  // A workspace of the organisation the install was taken out of (`team_access_revoked`).
  const named = slack.tenants.get(String(args.team_id ?? ''));
  if (named?.workspace.enterpriseId === org.id && named.orgInstall !== org) return refuse('team_access_not_granted');
  const about = [args.channel, args.channel_id, args.user, args.user_id, args.users].map((v) => String(v ?? ''));
  const isAbout = (t: Tenant) => about.some((id) => id && (t.holds(id) || !!t.person(id.split(',')[0] ?? '')));
  const reached = tenants.find((t) => t.teamId === args.team_id) ?? tenants.find(isAbout);
  const left = (t: Tenant) => t.workspace.enterpriseId === org.id && t.orgInstall !== org && isAbout(t);
  if (!reached && [...slack.tenants.values()].some(left)) return refuse('team_access_not_granted');
  const tenant = reached ?? first;
  return { tenant, org, scopes: state.scopes };
}
