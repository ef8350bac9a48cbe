import type { InstallProvider } from '@slack/oauth';
import type { WorkspaceRef } from '../workspace-ref.js';
import { renewingTokens, type StoredInstallation } from './installations.js';

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
