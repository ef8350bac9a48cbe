import type { BlockAction, ButtonAction } from '@slack/bolt';
import type { Deps } from '../deps.js';
import { endsAtAck } from '../slack/after-ack.js';
import type { Doors } from '../slack/router.js';
import { inWorkspace } from '../workspace.js';
import { REPORT_BUTTON, reportButton } from './doors/buttons.js';
import { visitorsCommand } from './doors/command.js';
import { COMMAND } from './doors/read-command.js';

/** `/visitors` and the report's buttons: a door each; the work they hand on runs in its lane (`visitors-tasks.ts`). */
export function registerVisitors(app: Doors, deps: Deps): void {
  app.command(COMMAND, endsAtAck(deps, inWorkspace(deps, visitorsCommand)));
  app.action<BlockAction<ButtonAction>>(REPORT_BUTTON, inWorkspace(deps, reportButton));
}
