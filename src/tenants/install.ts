import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authorize } from '@slack/bolt';
import { type CallbackOptions, type CodedError, ErrorCode, InstallProvider } from '@slack/oauth';
import type { Config } from '../config/config.js';
import type { OAuthConfig } from '../config/oauth-config.js';
import { type Logger, toSlackLogger } from '../log.js';
import { classifySlackError } from '../slack/errors.js';
import { StoreUnavailableError } from '../store/store.js';
import { installFailures, installPages } from './connect/messages.js';
import { type Installations, renewingTokens } from './installations.js';

/** The bot scopes of manifest.yml (a test keeps the two lists equal): what "Add to Slack" asks for. */
export const BOT_SCOPES = [
  'commands',
  'app_mentions:read',
  'chat:write',
  'reactions:write',
  'channels:history',
  'groups:history',
  'channels:read',
  'groups:read',
  'im:history',
  'mpim:history',
  'files:write',
  'files:read',
  'users:read',
  'im:write',
  'assistant:write',
  'links:read',
  'links:write',
];

export const INSTALL_PATH = '/slack/install';
export const REDIRECT_PATH = '/slack/oauth_redirect';

export interface InstallRoute {
  path: string;
  handler(req: IncomingMessage, res: ServerResponse): void;
}

export interface Installer {
  /** Bolt's `authorize`: each request gets its workspace's installation (its bot token, bot ids). */
  authorize: Authorize<boolean>;
  /** `GET /slack/install` and `GET /slack/oauth_redirect`, served on PORT whatever receives Slack's requests. */
  routes: InstallRoute[];
}

const esc = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function page(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Mintlify for Slack</title></head><body>${body}</body></html>`,
  );
}

/** Slack's own error code, as short as Slack writes one: a longer or odder `error` parameter is nobody's. */
const SLACK_CODE = /^[a-z0-9_.]{1,80}$/;

/**
 * Why the install ended on the failure page. Bolt's installer checks the way back in this order: `error=access_denied`
 * (Cancel), a `code` (else Slack's `error`, if any, is what it said), the `state` against this browser's cookie and
 * its age (10 minutes), then `oauth.v2.access` takes the code once.
 */
function failureOf(error: CodedError, req: IncomingMessage): string {
  if (error instanceof StoreUnavailableError) return installFailures.storeDown;
  switch (error.code) {
    case ErrorCode.AuthorizationError:
      return installFailures.cancelled;
    case ErrorCode.MissingStateError:
    case ErrorCode.InvalidStateError:
      return installFailures.stale;
    case ErrorCode.MissingCodeError: {
      const said = new URL(req.url ?? '', 'http://localhost').searchParams.get('error') ?? '';
      return installFailures.refused(SLACK_CODE.test(said) ? said : 'no code');
    }
  }
  const failure = classifySlackError(error);
  if (failure.code === 'invalid_code') return installFailures.codeUsed;
  if (failure.kind === 'transient' || failure.kind === 'rate_limited') return installFailures.slackDown;
  return installFailures.refused(failure.code);
}

/**
 * Bolt's installer as the app configures it: its installation store, bot scopes and Slack's address. Every role makes
 * one (a worker renews rotating tokens with it, see `bot-token.ts`); the web role also serves its pages.
 */
export function installProvider(
  config: Config,
  oauth: OAuthConfig,
  installations: Installations,
  log: Logger,
): InstallProvider {
  return new InstallProvider({
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    stateSecret: oauth.stateSecret,
    installationStore: installations,
    authorizationUrl: oauth.authorizeUrl,
    directInstall: true,
    installUrlOptions: { scopes: BOT_SCOPES },
    clientOptions: { slackApiUrl: config.slack.apiUrl, retryConfig: { retries: 0 } },
    logger: toSlackLogger(log, config.logLevel),
  });
}

/**
 * Bolt's installer (@slack/oauth's InstallProvider, as Bolt's receivers build it): `/slack/install` sends the
 * person to Slack's authorize page with the client id, the manifest's bot scopes and a signed state (also set as a
 * cookie); `/slack/oauth_redirect` checks the state against that cookie, exchanges the code with `oauth.v2.access`
 * (through SLACK_API_URL), stores the installation and ends on a page that says what to do next.
 */
export function createInstaller(provider: InstallProvider, log: Logger): Installer {
  /** Where the browser ends: the install worked and what to do next (200), or it did not and how to retry. */
  const callbacks: CallbackOptions = {
    success(installation, _options, _req, res) {
      const team = installation.team?.id;
      const enterprise = installation.enterprise?.id;
      log.info('slack.installed', { team, enterprise, installer: installation.user.id });
      const app = new URL('https://slack.com/app_redirect');
      app.searchParams.set('app', installation.appId ?? '');
      if (team) app.searchParams.set('team', team);
      const name = installation.team?.name ?? installation.enterprise?.name ?? 'your workspace';
      page(res, 200, installPages.installed(esc(name), esc(app.href), installation.isEnterpriseInstall === true));
    },
    failure(error, _options, req, res) {
      log.warn('slack.install_failed', { code: error.code, error: error.message });
      page(res, 400, installPages.failed(esc(failureOf(error, req)), INSTALL_PATH));
    },
  };
  return {
    authorize: (source) => renewingTokens(() => provider.authorize(source)),
    routes: [
      {
        path: INSTALL_PATH,
        handler: (req, res) => void provider.handleInstallPath(req, res, undefined, { scopes: BOT_SCOPES }),
      },
      { path: REDIRECT_PATH, handler: (req, res) => void provider.handleCallback(req, res, callbacks) },
    ],
  };
}
