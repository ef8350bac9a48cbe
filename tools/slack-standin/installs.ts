import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type EventEnvelope, eventEnvelope, eventTs } from './events.js';
import { type Answer, type Args, ok, refuse } from './methods/answer.js';
import type { SlackStandin } from './server.js';
import type { Tenant } from './tenant.js';
import type { TokenOwner } from './tokens.js';

/** The app as configured at api.slack.com: its credentials and the Redirect URLs it allows. */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

/** Who clicks Allow on the next authorization, and where: a workspace, or an organisation (org-wide install). */
export interface InstallChoice {
  teamId?: string;
  enterpriseId?: string;
  /** The person installing (`authed_user.id`); the workspace's first person by default. */
  userId?: string;
  /** They click Cancel instead: Slack redirects with `error=access_denied`. */
  deny?: boolean;
}

interface Grant {
  code: string;
  /** The workspace installed into (for an org-wide install, one of the organisation's). */
  teamId: string;
  owner: TokenOwner;
  userId: string;
  scope: string;
  userScope: string;
  redirectUri: string;
  /** Whether the authorize request named the redirect_uri (then the exchange must name the same). */
  named: boolean;
  issuedAt: number;
  used: boolean;
}

/** An authorization code lives ten minutes and is good once (OAuth v2 guide, "exchanging a verification code"). */
const CODE_TTL_MS = 10 * 60_000;

/**
 * Installs, the way Slack's OAuth v2 does them (docs.slack.dev/authentication/installing-with-oauth): the authorize
 * page (`GET /oauth/v2/authorize`) standing in for a person clicking Allow, `oauth.v2.access` exchanging the code
 * for a fresh bot token, and the end of an install (`uninstall`, `revokeTokens`) with the events Slack sends.
 */
export class Installs {
  app: OAuthApp = { clientId: '1111.2222', clientSecret: 'standin-client-secret', redirectUris: [] };
  readonly grants: Grant[] = [];
  private next?: InstallChoice | undefined;

  constructor(private readonly slack: SlackStandin) {}

  /** The next authorization installs into this workspace or organisation, as this person (or is cancelled). */
  nextInstall(choice: InstallChoice): void {
    this.next = choice;
  }

  /**
   * `GET /oauth/v2/authorize?client_id&scope&user_scope&state&redirect_uri&team`: a 302 to the redirect URI with
   * `code` and `state` (or `error=access_denied`). Slack shows an error page instead for an unknown client_id, no
   * scopes, or a redirect_uri that matches none of the app's Redirect URLs.
   */
  authorize(query: URLSearchParams): Answer {
    const named = query.get('redirect_uri');
    if (query.get('client_id') !== this.app.clientId) return errorPage('Invalid client_id parameter');
    if (!query.get('scope') && !query.get('user_scope')) return errorPage('Invalid permissions requested');
    if (named !== null && !this.app.redirectUris.includes(named)) {
      return errorPage(`redirect_uri did not match any configured URIs. Passed URI: ${named}`);
    }
    const redirectUri = named ?? this.app.redirectUris[0];
    if (!redirectUri) return errorPage('No redirect_uri was given and the app has no Redirect URL');
    // Slack's team parameter picks the workspace when it is one the person can install into.
    const team = query.get('team');
    const choice = this.next ?? (team && this.slack.tenants.has(team) ? { teamId: team } : {});
    this.next = undefined;
    const target = new URL(redirectUri);
    const state = query.get('state');
    if (choice.deny) target.searchParams.set('error', 'access_denied');
    else {
      const grant = this.grant(choice, query, redirectUri, named !== null);
      this.grants.push(grant);
      target.searchParams.set('code', grant.code);
    }
    if (state !== null) target.searchParams.set('state', state);
    return { status: 302, headers: { location: target.toString() }, body: null, raw: '' };
  }

  /**
   * `oauth.v2.access`: client id and secret by HTTP Basic auth or in the body; refuses an unknown client
   * (`invalid_client_id`), a wrong secret (`bad_client_secret`), an unknown, used or expired code (`invalid_code`),
   * a redirect_uri other than the authorize request's (`bad_redirect_uri`). Answers the v2 shape with a fresh token.
   */
  access(args: Args, req: IncomingMessage): Answer {
    const [basicId, basicSecret] = basic(req);
    const clientId = basicId ?? args.client_id;
    const secret = basicSecret ?? args.client_secret;
    if (clientId !== this.app.clientId) return refuse('invalid_client_id');
    if (secret !== this.app.clientSecret) return refuse('bad_client_secret');
    if (args.grant_type === 'refresh_token') return this.slack.rotation.refresh(args);
    if (args.grant_type !== undefined && args.grant_type !== 'authorization_code') return refuse('invalid_grant_type');
    const grant = this.grants.find((g) => g.code === args.code);
    if (!grant || grant.used || this.slack.now() - grant.issuedAt > CODE_TTL_MS) return refuse('invalid_code');
    const redirect = args.redirect_uri;
    if ((grant.named || redirect !== undefined) && redirect !== grant.redirectUri) return refuse('bad_redirect_uri');
    grant.used = true;
    return ok(this.install(grant));
  }

  /**
   * The workspace removes the app: its tokens are refused from now on (`account_inactive`, as a bot token of a
   * removed app answers: bolt-python#1029), and Slack sends `tokens_revoked` then `app_uninstalled`. Under an
   * org-wide install the organisation removes it, from every workspace (the events come from `teamId`'s).
   */
  uninstall(teamId: string, error = 'account_inactive'): EventEnvelope[] {
    const tenant = this.slack.tenant(teamId);
    return [
      ...this.revokeTokens(teamId, error),
      eventEnvelope(tenant, { type: 'app_uninstalled', event_ts: eventTs() }),
    ];
  }

  /**
   * The workspace's tokens are revoked (`token_revoked` from now on): `tokens_revoked`, bot user ids listed. Under an
   * org-wide install, the organisation's: its token, its bot user, in every workspace it serves.
   */
  revokeTokens(teamId: string, error = 'token_revoked'): EventEnvelope[] {
    const tenant = this.slack.tenant(teamId);
    const org = tenant.orgInstall;
    this.slack.tokens.refuseAll(org ? { enterpriseId: org.id } : { teamId }, error);
    const tokens = { bot: [org?.botUserId ?? tenant.workspace.botUserId] };
    return [eventEnvelope(tenant, { type: 'tokens_revoked', tokens, event_ts: eventTs() })];
  }

  /**
   * An organisation's admin takes an org-wide install out of some of its workspaces (docs.slack.dev, events,
   * `team_access_revoked`): the org token no longer acts there, and still works in the others (its `auth.test`
   * answers), and Slack sends `team_access_revoked` naming the workspaces, from the organisation, to an app that
   * subscribes to it (`slack.subscriptions`: the manifest's `bot_events` by default, which ships without it).
   */
  revokeTeamAccess(enterpriseId: string, teamIds: string[]): EventEnvelope[] {
    const served = [...this.slack.tenants.values()].filter((t) => t.orgInstall?.id === enterpriseId);
    const from = served[0];
    if (!from) throw new Error(`the stand-in has no org-wide install for ${enterpriseId}`);
    const event = eventEnvelope(from, { type: 'team_access_revoked', team_ids: teamIds, event_ts: eventTs() });
    for (const tenant of served) if (teamIds.includes(tenant.teamId)) tenant.orgInstall = undefined;
    return this.slack.subscriptions.has('team_access_revoked') ? [event] : [];
  }

  /**
   * The admin adds the org-wide install to some of the organisation's workspaces again (docs.slack.dev, events,
   * `team_access_granted`): the org token acts there (`auth.teams.list` lists them), and Slack sends
   * `team_access_granted` naming them to an app that subscribes to it.
   */
  grantTeamAccess(enterpriseId: string, teamIds: string[]): EventEnvelope[] {
    const org = this.slack.enterprises.get(enterpriseId);
    const from = [...this.slack.tenants.values()].find((t) => org && t.orgInstall === org);
    if (!org || !from) throw new Error(`the stand-in has no org-wide install for ${enterpriseId}`);
    for (const tenant of this.slack.tenants.values()) {
      if (tenant.workspace.enterpriseId === enterpriseId && teamIds.includes(tenant.teamId)) tenant.orgInstall = org;
    }
    const event = eventEnvelope(from, { type: 'team_access_granted', team_ids: teamIds, event_ts: eventTs() });
    return this.slack.subscriptions.has('team_access_granted') ? [event] : [];
  }

  private grant(choice: InstallChoice, query: URLSearchParams, redirectUri: string, named: boolean): Grant {
    const tenant = this.tenantFor(choice);
    const owner: TokenOwner = choice.enterpriseId ? { enterpriseId: choice.enterpriseId } : { teamId: tenant.teamId };
    return {
      code: `${tenant.teamId}.${this.slack.nextId()}.${randomBytes(16).toString('hex')}`,
      teamId: tenant.teamId,
      owner,
      userId: choice.userId ?? tenant.workspace.users.find((u) => !u.isBot)?.id ?? '',
      scope: query.get('scope') ?? '',
      userScope: query.get('user_scope') ?? '',
      redirectUri,
      named,
      issuedAt: this.slack.now(),
      used: false,
    };
  }

  private tenantFor(choice: InstallChoice): Tenant {
    if (!choice.enterpriseId) return this.slack.tenant(choice.teamId);
    const tenant = [...this.slack.tenants.values()].find((t) => t.workspace.enterpriseId === choice.enterpriseId);
    if (!tenant) throw new Error(`the stand-in has no organisation ${choice.enterpriseId}`);
    return tenant;
  }

  private install(grant: Grant): Record<string, unknown> {
    const org = 'enterpriseId' in grant.owner ? this.slack.enterprises.get(grant.owner.enterpriseId) : undefined;
    const ws = this.slack.tenant(grant.teamId).workspace;
    const grid = ws.enterpriseId ? this.slack.enterprises.get(ws.enterpriseId) : undefined;
    const user = grant.userScope
      ? {
          scope: grant.userScope,
          access_token: this.slack.tokens.issue('user', grant.owner, scopeList(grant.userScope)),
          token_type: 'user',
        }
      : {};
    const install = {
      app_id: ws.appId,
      team: org ? null : { id: ws.teamId, name: ws.teamName ?? ws.teamDomain },
      enterprise: grid ? { id: grid.id, name: grid.name } : null,
      is_enterprise_install: !!org,
    };
    const bot = { scope: grant.scope, bot_user_id: org?.botUserId ?? ws.botUserId };
    return {
      ...install,
      authed_user: { id: grant.userId, ...user },
      ...(grant.scope && {
        ...bot,
        token_type: 'bot',
        ...this.slack.rotation.botPair(grant.owner, { ...install, ...bot }, scopeList(grant.scope)),
      }),
    };
  }
}

/** OAuth's `scope` parameter: scopes separated by commas. */
const scopeList = (scope: string) => scope.split(',').filter(Boolean);

function basic(req: IncomingMessage): [string | undefined, string | undefined] {
  const header = req.headers.authorization;
  if (!header?.startsWith('Basic ')) return [undefined, undefined];
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const at = decoded.indexOf(':');
  return [decoded.slice(0, at), decoded.slice(at + 1)];
}

/** Slack's authorize page when it cannot go on: a page on slack.com saying why, not a redirect to the app. */
function errorPage(why: string): Answer {
  const html = `<!DOCTYPE html><html lang="en-US"><head><title>Slack</title></head><body><h1>Oops</h1><p>${why
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')}</p></body></html>`;
  return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: null, raw: html };
}
