import type { BlockAction, FeedbackButtonsAction, ViewSubmitAction } from '@slack/bolt';
import type { Deps } from '../deps.js';
import { endsAtAck } from '../slack/after-ack.js';
import type { Doors } from '../slack/router.js';
import type { ReportBeside } from '../visitors/index.js';
import { inWorkspace } from '../workspace.js';
import { contextChanged, messagesTabOpened } from './doors/agent-view.js';
import { assistantPane } from './doors/assistant.js';
import { agentCommand } from './doors/command.js';
import { mention, message } from './doors/conversation.js';
import { feedbackClicked, feedbackSubmitted } from './doors/feedback.js';
import { messageShortcut, shortcutSubmission } from './doors/shortcut.js';
import { FEEDBACK_ACTION } from './feedback/buttons.js';
import { FEEDBACK_MODAL } from './feedback/modal.js';
import { OPEN_PR_ACTION } from './job-messages.js';
import { sessionStopped } from './session/door.js';
import { SHORTCUT_ID } from './shortcut-modal.js';

/**
 * The agent's doors: `/agent`, mentions, DMs, thread replies, the message shortcut and its form, the assistant pane
 * (`assistant_view`) and the Messages tab as the agent's home (`agent_view`): both are served, whichever the
 * manifest declares.
 */
export function registerAgent(app: Doors, root: Deps, reportBeside: ReportBeside): void {
  // Middleware, ahead of every listener: it takes the pane's events and every person's message in a DM thread.
  app.assistant(assistantPane(root, reportBeside));
  app.command('/agent', endsAtAck(root, inWorkspace(root, agentCommand)));
  app.event('app_mention', endsAtAck(root, inWorkspace(root, mention)));
  app.event(
    'message',
    endsAtAck(
      root,
      inWorkspace(root, (deps, args: Parameters<typeof message>[1]) => message(deps, args, reportBeside)),
    ),
  );
  app.event('app_home_opened', inWorkspace(root, messagesTabOpened));
  app.event('app_context_changed', inWorkspace(root, contextChanged));
  app.event('agent_session_stopped', inWorkspace(root, sessionStopped));
  app.shortcut({ callback_id: SHORTCUT_ID, type: 'message_action' }, inWorkspace(root, messageShortcut));
  app.view<ViewSubmitAction>(
    { callback_id: SHORTCUT_ID, type: 'view_submission' },
    inWorkspace(root, shortcutSubmission),
  );
  app.action<BlockAction<FeedbackButtonsAction>>(FEEDBACK_ACTION, inWorkspace(root, feedbackClicked));
  app.view<ViewSubmitAction>(
    { callback_id: FEEDBACK_MODAL, type: 'view_submission' },
    inWorkspace(root, feedbackSubmitted),
  );
  // A link button opens its URL in the browser, and Slack still sends the click: acknowledge it, do nothing else.
  app.action(OPEN_PR_ACTION, ({ ack }) => ack());
}
