import { Assistant, type AssistantThreadStartedMiddleware, type AssistantUserMessageMiddleware } from '@slack/bolt';
import type { Deps } from '../../deps.js';
import { slackErrorCode } from '../../slack/errors.js';
import type { ReportBeside } from '../../visitors/index.js';
import { inWorkspace } from '../../workspace.js';
import { paneCopy } from '../messages.js';
import { paneContextOf, paneContextStore } from '../pane-context.js';
import { type BesideDeps, besideChannel } from './beside.js';
import { directMessage } from './conversation.js';
import { toIncoming } from './incoming.js';

type OpenedArgs = Parameters<AssistantThreadStartedMiddleware>[0];
type PaneMessageArgs = Parameters<AssistantUserMessageMiddleware>[0];
type DoorDeps = BesideDeps;

// Slack's assistant pane (Agents & AI apps) through Bolt's `Assistant`: it takes `assistant_thread_started`,
// `assistant_thread_context_changed` and every person's message in a thread of a DM with the app. A DM thread that
// is not the pane's (a job started by a DM, or a workspace without the pane) is the DM door's, as before.

/** The person opened the pane: where they are is kept for the thread, and the suggested prompts are offered. */
export async function paneOpened(
  deps: Pick<Deps, 'log'>,
  { saveThreadContext, setSuggestedPrompts }: OpenedArgs,
): Promise<void> {
  await saveThreadContext().catch((error) => deps.log.error('store.degraded', { op: 'pane.save_context', error }));
  await setSuggestedPrompts({ title: paneCopy.promptsTitle, prompts: paneCopy.prompts }).catch((error) =>
    deps.log.warn('slack.pane_failed', { op: 'suggested_prompts', slack_error: slackErrorCode(error) }),
  );
}

/**
 * A person's message in a thread of their DM with the app. In the pane's thread it is spoken to the bot next to the
 * pane's channel (`beside.ts`); any other DM thread is the DM door's.
 */
export async function paneMessage(deps: DoorDeps, args: PaneMessageArgs, reportBeside: ReportBeside): Promise<void> {
  const { event, body, context } = args;
  const incoming = toIncoming(event, context.botUserId);
  if (!incoming) return;
  // Without the store the thread cannot be told from a DM's: it is answered as one (the default project).
  const where = incoming.threadTs
    ? await paneContextOf(deps, incoming.channel, incoming.threadTs).catch((error) => {
        deps.log.error('store.degraded', { op: 'pane.read_context', error });
        return undefined;
      })
    : undefined;
  if (!where) return directMessage(deps, args, reportBeside);
  await besideChannel(deps, incoming, { body, context }, where.channel_id, reportBeside);
}

/** The pane's handlers for `app.assistant`, with the thread context kept in the app's store. */
export function assistantPane(root: Deps, reportBeside: ReportBeside): Assistant {
  return new Assistant({
    threadContextStore: paneContextStore(root),
    threadStarted: inWorkspace(root, paneOpened),
    userMessage: inWorkspace(root, (deps, args: PaneMessageArgs) => paneMessage(deps, args, reportBeside)),
  });
}
