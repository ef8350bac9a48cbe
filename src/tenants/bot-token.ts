import type { InstallProvider } from '@slack/oauth';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Renewal } from '../app/removal.js';
import type { OAuthConfig } from '../config/oauth-config.js';
import { slackErrorCode } from '../slack/errors.js';
import type { WorkspaceRef } from '../workspace-ref.js';
import { type Installations, renewingTokens, type StoredInstallation, storeRenewal } from './installations.js';

/** The bot token to work with in a workspace, given its stored installation. */
export type BotToken = (ref: WorkspaceRef, installation: StoredInstallation) => Promise<string>;

/**
 * The bot token for work done outside a Slack request (workers, schedules, App Home after a job). With Slack's token
 * rotation on for the app, a bot token lives 12 hours: Bolt's installer (`authorize`) renews one that expires within
 * 2 hours and stores the new pair, as it does for each request the app receives. Without rotation the stored token
 * never expires and is used as it is.
 */
export function botTokenOf(provider: InstallProvider): BotToken {
  return async (ref, installation) => {
    if (!installation.bot.refreshToken) return installation.bot.token;
    const isEnterpriseInstall = installation.isEnterpriseInstall ?? false;
    const { botToken } = await renewingTokens(() =>
      provider.authorize({ teamId: ref.teamId || undefined, enterpriseId: ref.enterpriseId, isEnterpriseInstall }),
    );
    return botToken ?? installation.bot.token;
  };
}

/** What `oauth.v2.access` answers for `grant_type=refresh_token`: the next pair. */
const RenewedPairSchema = z.object({ access_token: z.string(), refresh_token: z.string(), expires_in: z.number() });

/**
 * Renews a rotating bot token and stores the new pair, saying what Slack answered. Bolt's installer only logs a
 * refusal and keeps the expired token, but a removal must know it: Slack refuses to renew the token of an app
 * uninstalled or revoked (`invalid_refresh_token`). A refresh token another instance spent first is no refusal:
 * that instance stored the pair it got, which is used.
 */
export function renewalOf(
  slack: WebClient,
  oauth: Pick<OAuthConfig, 'clientId' | 'clientSecret'>,
  installations: Pick<Installations, 'read' | 'storeInstallation'>,
) {
  return async (tenant: string, installation: StoredInstallation): Promise<Renewal> => {
    const { refreshToken } = installation.bot;
    try {
      const answer = await slack.oauth.v2.access({
        client_id: oauth.clientId,
        client_secret: oauth.clientSecret,
        grant_type: 'refresh_token',
        refresh_token: refreshToken ?? '',
      });
      const pair = RenewedPairSchema.parse(answer);
      const expiresAt = Math.floor(Date.now() / 1000) + pair.expires_in;
      const bot = { ...installation.bot, token: pair.access_token, refreshToken: pair.refresh_token, expiresAt };
      await storeRenewal(installations, { ...installation, bot });
      return { token: bot.token };
    } catch (error) {
      const stored = await installations.read(tenant);
      if (stored?.bot.refreshToken && stored.bot.refreshToken !== refreshToken) return { token: stored.bot.token };
      return { refused: slackErrorCode(error) };
    }
  };
}
