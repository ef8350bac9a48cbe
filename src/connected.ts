import type { Deps } from './deps.js';

/**
 * A scheduled digest's run, skipped (logged `<feature>.digest_skipped`) in a workspace that has no Mintlify
 * connection (never connected, disconnected, or settings this process cannot open): there is no key to ask Mintlify
 * with. Its subscription stays, paused: it posts again once Mintlify is connected, and `digest off` still ends it.
 */
export const whenConnected =
  <D extends { channel: string }>(feature: string, run: (deps: Deps, data: D) => Promise<void>) =>
  async (deps: Deps, data: D): Promise<void> => {
    if (deps.connection && !deps.connection.settings) {
      deps.log.info(`${feature}.digest_skipped`, { channel: data.channel, reason: 'not_connected' });
      return;
    }
    await run(deps, data);
  };

/**
 * A button's project that this workspace no longer connects (many workspaces: Disconnect, or another project
 * connected since its message was made); `undefined` when it does, or for the app's own projects.
 */
export const disconnectedProject = (deps: Pick<Deps, 'projects' | 'connection'>, project: string | undefined) =>
  deps.connection && project && !deps.projects.knows(project) ? project : undefined;
