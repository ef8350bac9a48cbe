import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { slackErrorCode } from '../slack/errors.js';
import { keys } from '../store/keys.js';
import { paneCopy } from './messages.js';

// Slack's Agent messaging experience (manifest `agent_view`, the only one for apps created since 2026-06-30): the
// app's Messages tab (its DM) is the agent's home. Opening it (`app_home_opened`, `tab: "messages"`) is where the
// app offers its suggested prompts; what the person is looking at comes as `app_context_changed` and as
// `app_context` on their DM messages, and routes their jobs to that channel's project, as the pane's thread
// context does on `assistant_view`.

/** What a person is looking at: entities ordered by relevance, none when they look at nothing (`{}`). */
export const AppContextSchema = z.object({
  entities: z.array(z.object({ type: z.string(), value: z.unknown() }).loose()).optional(),
});
export type AppContext = z.infer<typeof AppContextSchema>;

/** Where a person is, to the app: the channel whose project their jobs use (none: the default project's). */
export type Viewing = { channel?: string };

/** What a person last looked at is kept this long: a day-old view routes no job. */
const VIEWING_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The channel of the most relevant entity that names one: a channel the person is in (`channel_id`), or the
 * channel of a message they are reading (`message_context`). A canvas or a list has no project.
 */
export function viewingOf(context: AppContext): Viewing {
  for (const { type, value } of context.entities ?? []) {
    if (type === 'slack#/types/channel_id' && typeof value === 'string') return { channel: value };
    const inMessage = (value as { channel_id?: unknown } | null)?.channel_id;
    if (type === 'slack#/types/message_context' && typeof inMessage === 'string') return { channel: inMessage };
  }
  return {};
}

/** Keeps what `userId` looks at (`app_context_changed`, or the Messages tab opened with a context). */
export async function keepViewing(deps: Pick<Deps, 'store'>, userId: string, context: AppContext): Promise<void> {
  await deps.store.kv.set(keys.viewing(userId), viewingOf(context), VIEWING_TTL_MS);
}

/** How long a DM waits for what the person last looked at before going on without it. */
const KEPT_VIEW_WAIT_MS = 300;

/**
 * Where a DM message was written from: its own `app_context` (agent_view stamps it on every DM message), else what
 * the person last looked at. `undefined` when neither is known: an `assistant_view` app, or no view kept.
 */
export async function viewingFor(
  deps: Pick<Deps, 'store'>,
  userId: string,
  appContext: unknown,
): Promise<Viewing | undefined> {
  const stamped = AppContextSchema.safeParse(appContext);
  if (appContext !== undefined && stamped.success) return viewingOf(stamped.data);
  // The kept view is a nicety: a store that is slow to answer (or hangs) must not hold the person's answer.
  const late = sleep(KEPT_VIEW_WAIT_MS, undefined, { ref: false }).then(() => undefined);
  return Promise.race([deps.store.kv.get<Viewing>(keys.viewing(userId)), late]);
}

/**
 * The person opened the Messages tab: its suggested prompts, set without `thread_ts` as an agent_view app must
 * (with one, Slack drops the call silently). An `assistant_view` app gets them on the DM's latest thread.
 */
export async function offerPrompts(deps: Pick<Deps, 'slack' | 'log'>, dm: string): Promise<void> {
  await deps.slack.assistant.threads
    .setSuggestedPrompts({ channel_id: dm, title: paneCopy.promptsTitle, prompts: paneCopy.prompts })
    .catch((error) =>
      deps.log.warn('slack.pane_failed', { op: 'messages_tab_prompts', slack_error: slackErrorCode(error) }),
    );
}
