import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../deps.js';
import type { Doors } from '../slack/router.js';
import { inWorkspace } from '../workspace.js';
import { homeTasks } from './home-tasks.js';

type HomeOpenedArgs = SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs;

/** A person opened one of the app's tabs (Home, Messages): handed on to publish Home when it is Home. */
export async function homeOpened(deps: Pick<Deps, 'dispatch'>, { event }: HomeOpenedArgs): Promise<void> {
  await deps.dispatch(homeTasks.opened, { userId: event.user, tab: event.tab ?? '' });
}

/**
 * App Home: each person's own jobs, the hourly quota and a how-to, published when they open the tab and again
 * whenever one of their jobs changes state while Home is the tab they last opened (`homeFollowsJob`, which every
 * role's deps carry: jobs change where the work runs, not where Slack's requests arrive).
 */
export function registerHome(app: Doors, deps: Pick<Deps, 'dispatch' | 'workspaces'>): void {
  app.event('app_home_opened', inWorkspace(deps, homeOpened));
}
