import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { Deps } from '../deps.js';
import { inWorkspace } from '../workspace.js';
import { UPDATE_PAGE_ACTION } from './blocks.js';
import { linkShared } from './doors/link-shared.js';
import { updatePage } from './doors/update-page.js';

/** Docs links unfurled with their readers (`link_shared`), and the unfurl's "Update this page" button. */
export function registerUnfurls(app: App, root: Deps): void {
  app.event('link_shared', inWorkspace(root, linkShared));
  app.action<BlockAction<ButtonAction>>(UPDATE_PAGE_ACTION, inWorkspace(root, updatePage));
}
