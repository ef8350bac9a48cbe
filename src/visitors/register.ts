import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { Deps } from '../deps.js';
import { inWorkspace } from '../workspace.js';
import { ACTION_IDS } from './blocks.js';
import { chartButton, csvButton, shareButton, shareChartButton, turnPageButton } from './doors/buttons.js';
import { COMMAND, visitorsCommand } from './doors/command.js';

/** `/visitors` and its buttons: one door each; the work they hand on runs in its lane (src/tasks.ts). */
export function registerVisitors(app: App, deps: Deps): void {
  app.command(COMMAND, inWorkspace(deps, visitorsCommand));
  app.action<BlockAction<ButtonAction>>(ACTION_IDS.prev, inWorkspace(deps, turnPageButton));
  app.action<BlockAction<ButtonAction>>(ACTION_IDS.next, inWorkspace(deps, turnPageButton));
  app.action<BlockAction<ButtonAction>>(ACTION_IDS.share, inWorkspace(deps, shareButton));
  app.action<BlockAction<ButtonAction>>(ACTION_IDS.csv, inWorkspace(deps, csvButton));
  app.action<BlockAction<ButtonAction>>(ACTION_IDS.chart, inWorkspace(deps, chartButton));
  app.action<BlockAction<ButtonAction>>(ACTION_IDS.shareChart, inWorkspace(deps, shareChartButton));
}
