import type { BlockAction, ViewSubmitAction } from '@slack/bolt';
import type { Deps } from '../deps.js';
import type { Doors } from '../slack/router.js';
import { inWorkspace } from '../workspace.js';
import { CONNECT_IDS } from './connect/view.js';
import { type ConnectOptions, disconnect, openConnect, submitConnect } from './doors/connect.js';
import { notConnectedGate } from './gate.js';
import type { Tenancy } from './tenancy.js';

/**
 * What serving many workspaces adds to Slack's doors: the answer every door gives before a workspace connected
 * Mintlify, and App Home's connect, change and disconnect (the modal checks the key before saving it); `home`
 * publishes the person's Home after a change.
 */
export function registerTenancy(app: Doors, root: Deps, tenancy: Tenancy, home: Pick<ConnectOptions, 'publishHome'>) {
  app.use(notConnectedGate(root));
  app.action<BlockAction>(CONNECT_IDS.open, inWorkspace(root, openConnect));
  app.action<BlockAction>(CONNECT_IDS.disconnect, inWorkspace(root, disconnect(home)));
  app.view<ViewSubmitAction>(
    { callback_id: CONNECT_IDS.view, type: 'view_submission' },
    inWorkspace(root, submitConnect({ ...home, secrets: tenancy.secrets, checkClient: tenancy.checkClient })),
  );
}
