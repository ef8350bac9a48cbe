import { inspect } from 'node:util';
import { type App, MultipleListenerError } from '@slack/bolt';

/** Where the features register their doors: Bolt's own methods, so each door is typed as Bolt types it. */
export type Doors = Pick<App, 'use' | 'assistant' | 'command' | 'event' | 'action' | 'view' | 'shortcut'>;

type Listener = (args: never) => Promise<void>;
/** What a listener is handed, as far as finding its door goes. */
type Keys = Record<Surface, Record<string, string | undefined>>;
type Surface = 'command' | 'event' | 'action' | 'view' | 'shortcut';

/**
 * The surfaces the router serves: how Bolt gets the one listener of each (matching every key registered on it), the
 * constraint type a door of it may name (Bolt's `type`), and the request's key.
 */
const SURFACES = {
  command: {
    type: undefined,
    mount: (app: App, keys: RegExp, listener: Listener) => app.command(keys, listener as never),
    keyOf: (a: Keys) => a.command.command,
  },
  event: {
    type: undefined,
    mount: (app: App, keys: RegExp, listener: Listener) => app.event(keys, listener as never),
    keyOf: (a: Keys) => a.event.type,
  },
  action: {
    type: undefined,
    mount: (app: App, keys: RegExp, listener: Listener) => app.action(keys, listener as never),
    keyOf: (a: Keys) => a.action.action_id,
  },
  view: {
    type: 'view_submission',
    mount: (app: App, keys: RegExp, listener: Listener) =>
      app.view({ callback_id: keys, type: 'view_submission' }, listener as never),
    keyOf: (a: Keys) => a.view.callback_id,
  },
  shortcut: {
    type: 'message_action',
    mount: (app: App, keys: RegExp, listener: Listener) =>
      app.shortcut({ callback_id: keys, type: 'message_action' }, listener as never),
    keyOf: (a: Keys) => a.shortcut.callback_id,
  },
} satisfies Record<Surface, { type: string | undefined; mount: unknown; keyOf: unknown }>;

/** A door's name on its surface, or a pattern of names (`/^visitors\./`: the report's buttons, old ones included). */
type Name = string | RegExp;
type Door = { name: Name; listener: Listener };

const escaped = (name: string) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** Matches what any of `names` matches, as Bolt would one by one. */
const anyOf = (names: readonly Name[]) =>
  new RegExp(names.map((n) => (typeof n === 'string' ? `^${escaped(n)}$` : `(?:${n.source})`)).join('|'));
const named = (name: Name, key: string) => (typeof name === 'string' ? name === key : name.test(key));

/** The doors a request's key opens, in the order they came, run together and failing as Bolt's listeners do. */
async function run(doors: readonly Door[], key: string, args: never): Promise<void> {
  const open = doors.filter((door) => named(door.name, key));
  if (open.length === 1) return open[0]?.listener(args);
  const settled = await Promise.allSettled(open.map((door) => door.listener(args)));
  const failed = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as Error] : []));
  if (failed.length > 1) throw new MultipleListenerError(failed);
  if (failed[0]) throw failed[0];
}

/**
 * Bolt runs every request through every listener's chain (a copy of it, its matchers, promises), matching or not:
 * with a listener per door that was 21 chains a request, most of what the web role allocated beyond bare Bolt
 * (BENCHMARKS §1b). Doors register here instead, by name (a command's, an event's type, an action's id, a form's or
 * shortcut's callback id), and `mount` gives Bolt one listener per surface, which finds the request's doors by that
 * key. Middleware (`use`, `assistant`) goes to Bolt at once, in order.
 */
export function createRouter(app: App): Doors & { mount(): void } {
  const doors = new Map<Surface, Door[]>();
  const on =
    (surface: Surface) =>
    (what: unknown, ...listeners: Listener[]) => {
      const { callback_id: callbackId, type = SURFACES[surface].type } = Object(what) as Record<string, unknown>;
      const name = typeof what === 'string' || what instanceof RegExp ? what : callbackId;
      const [listener, ...more] = listeners;
      const plain = typeof name === 'string' || (name instanceof RegExp && name.flags === '');
      if (!plain || type !== SURFACES[surface].type || !listener || more.length > 0) {
        throw new Error(`Each ${surface} door takes one listener and a name or a pattern, not ${inspect(what)}`);
      }
      doors.set(surface, [...(doors.get(surface) ?? []), { name, listener }]);
    };
  const router = {
    use: app.use.bind(app),
    assistant: app.assistant.bind(app),
    command: on('command'),
    event: on('event'),
    action: on('action'),
    view: on('view'),
    shortcut: on('shortcut'),
    mount() {
      for (const [surface, those] of doors) {
        const { mount, keyOf } = SURFACES[surface];
        const names = anyOf(those.map((door) => door.name));
        mount(app, names, (args) => run(those, keyOf(args as Keys) ?? '', args));
      }
    },
  };
  return router as unknown as Doors & { mount(): void };
}
