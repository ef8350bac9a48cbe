import type { AssistantConfig, Context } from '@slack/bolt';
import type { Deps, Workspaces } from '../deps.js';
import { RECORD_TTL_MS } from '../store/jobs.js';
import { keys } from '../store/keys.js';
import { workspaceOf } from '../workspace-ref.js';

// Where the person is while they write in the assistant pane: the channel next to it, kept per pane thread. The
// pane's door saves and reads it; a pane turn (`pane.ts`) gets the channel with its data.

/** Bolt's thread context store (not exported by name). */
type ContextStore = NonNullable<AssistantConfig['threadContextStore']>;

/** Where the person is: the channel (and its workspace) next to the pane. */
type PaneContext = { channel_id?: string; team_id?: string; enterprise_id?: string | null };

/** The ids of the pane's thread in a Bolt assistant payload (`assistant_thread`, or a message in the thread). */
function threadOf(payload: Record<string, unknown>): { channel: string; threadTs: string; context: PaneContext } {
  const pane = (payload.assistant_thread ?? {}) as { channel_id?: string; thread_ts?: string; context?: PaneContext };
  return {
    channel: String(pane.channel_id ?? payload.channel ?? ''),
    threadTs: String(pane.thread_ts ?? payload.thread_ts ?? ''),
    context: pane.context ?? {},
  };
}

/**
 * Bolt's thread context store, kept in the app's store (every instance sees it; Bolt's default would read and
 * rewrite the bot's first message of the thread). Saved for every thread the pane starts, even one opened away
 * from any channel (an empty context): a DM thread without one is not the pane's.
 */
export function paneContextStore(root: { workspaces: Pick<Workspaces, 'scope'> }): ContextStore {
  const where = async ({ context, payload }: { context: Context; payload: unknown }) => {
    const deps = await root.workspaces.scope(workspaceOf(context));
    return { deps, ...threadOf(payload as Record<string, unknown>) };
  };
  return {
    async get(args) {
      const { deps, channel, threadTs } = await where(args);
      return (await paneContextOf(deps, channel, threadTs)) ?? {};
    },
    async save(args) {
      const { deps, channel, threadTs, context } = await where(args);
      await deps.store.kv.set(keys.paneContext(channel, threadTs), context, RECORD_TTL_MS);
    },
  };
}

/** Where the person is, for a thread of the pane; `undefined` for any other thread. */
export function paneContextOf(deps: Pick<Deps, 'store'>, channel: string, threadTs: string) {
  return deps.store.kv.get<PaneContext>(keys.paneContext(channel, threadTs));
}
