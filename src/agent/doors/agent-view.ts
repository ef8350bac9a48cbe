import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../../deps.js';
import { AppContextSchema, keepViewing, offerPrompts } from '../agent-view.js';

type HomeOpenedArgs = SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs;
type ContextChangedArgs = SlackEventMiddlewareArgs<'app_context_changed'> & AllMiddlewareArgs;
type DoorDeps = Pick<Deps, 'slack' | 'store' | 'log'>;

// The doors of the Agent messaging experience (`agent_view`): the Messages tab opened, and the person moving while
// the app is open. Their messages come as `message.im`, through the DM door.

/**
 * A person opened the Messages tab (`app_home_opened`, `tab: "messages"`; the Home tab is App Home's): what they
 * look at, when the event says, is kept, and the suggested prompts are offered.
 */
export async function messagesTabOpened(deps: DoorDeps, { event }: HomeOpenedArgs): Promise<void> {
  if (event.tab !== 'messages') return;
  const context = AppContextSchema.safeParse(event.context);
  if (event.context && context.success) await keep(deps, event.user, context.data);
  await offerPrompts(deps, event.channel);
}

/** The person moved with the app open (`app_context_changed`, agent_view only): kept for their next message. */
export async function contextChanged(deps: DoorDeps, { event }: ContextChangedArgs): Promise<void> {
  const context = AppContextSchema.safeParse(event.context ?? {});
  if (event.user && context.success) await keep(deps, event.user, context.data);
}

async function keep(deps: DoorDeps, userId: string, context: Parameters<typeof keepViewing>[2]): Promise<void> {
  await keepViewing(deps, userId, context).catch((error) =>
    deps.log.error('store.degraded', { op: 'agent_view.save_context', error }),
  );
}
