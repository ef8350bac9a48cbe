import type { BlockAction, ButtonAction, ViewSubmitAction } from '@slack/bolt';
import type { Deps } from '../deps.js';
import type { Doors } from '../slack/router.js';
import type { DigestReading } from '../visitors/index.js';
import { inWorkspace } from '../workspace.js';
import { ACTION_IDS } from './blocks.js';
import { draftButton, pageButton } from './doors/buttons.js';
import { type CommandArgs, insightsCommand } from './doors/command.js';
import { draftSubmission } from './doors/submission.js';
import { DRAFT_CALLBACK } from './draft-modal.js';
import { COMMAND } from './messages.js';

/** `/insights`, its rows' Draft a fix buttons, Next →, Download CSV, and the Draft a fix form. */
export function registerInsights(app: Doors, deps: Deps, reading: DigestReading): void {
  // `/insights digest …` is read as `/visitors digest …` is: the visitors' reading, given by the composition.
  app.command(
    COMMAND,
    inWorkspace(deps, (scoped, args: CommandArgs) => insightsCommand(scoped, args, reading)),
  );
  app.action<BlockAction<ButtonAction>>(ACTION_IDS.next, inWorkspace(deps, pageButton));
  app.action<BlockAction<ButtonAction>>(ACTION_IDS.csv, inWorkspace(deps, pageButton));
  app.action<BlockAction<ButtonAction>>(ACTION_IDS.draft, inWorkspace(deps, draftButton));
  app.view<ViewSubmitAction>(
    { callback_id: DRAFT_CALLBACK, type: 'view_submission' },
    inWorkspace(deps, draftSubmission),
  );
}
