import type { Config } from '../config.js';

/** The optional allow-lists: unset means everyone in the workspace, in every conversation. */
export function isAllowed(config: Pick<Config, 'allowedUsers' | 'allowedChannels'>, user: string, channel: string) {
  const userOk = config.allowedUsers.length === 0 || config.allowedUsers.includes(user);
  const channelOk = config.allowedChannels.length === 0 || config.allowedChannels.includes(channel);
  return userOk && channelOk;
}
