import type { Deps } from '../deps.js';
import type { Doors } from '../slack/router.js';
import { inWorkspace } from '../workspace.js';
import { linkShared } from './doors/link-shared.js';

/**
 * Docs links unfurled with their readers (`link_shared`). Their "Update this page" is /insights' Draft a fix,
 * whose click and form /insights registers.
 */
export function registerUnfurls(app: Doors, root: Deps): void {
  app.event('link_shared', inWorkspace(root, linkShared));
}
