import type { StoredView } from '../tenant.js';
import { type Answer, type Handler, type MethodCall, ok, refuse } from './answer.js';
import { invalidBlocks } from './chat.js';

type Json = Record<string, unknown>;

/**
 * A view's own fields over Slack's limits (Modal views reference): a modal's title, close and submit are plain text
 * of at most 24 characters, `private_metadata` at most 3,000, `callback_id` at most 255.
 */
function viewProblems(body: Json): string[] {
  const problems: string[] = [];
  const tooLong = (value: unknown, max: number, at: string) => {
    if (typeof value === 'string' && value.length > max)
      problems.push(`[ERROR] must be less than ${max + 1} characters [json-pointer:/view${at}]`);
  };
  if (body.type === 'modal') {
    if (typeof (body.title as Json | undefined)?.text !== 'string')
      problems.push('[ERROR] missing required field: title [json-pointer:/view/title]');
    for (const button of ['title', 'close', 'submit'])
      tooLong((body[button] as Json | undefined)?.text, 24, `/${button}/text`);
  }
  tooLong(body.private_metadata, 3_000, '/private_metadata');
  tooLong(body.callback_id, 255, '/callback_id');
  return problems;
}

/**
 * Every views method refuses a view "greater than 250kb" (views.open, push, update and publish references:
 * `view_too_large`); taken here as 250,000 bytes of the view's JSON, the stricter reading.
 */
export const VIEW_MAX_BYTES = 250_000;

/** A trigger's life (api.slack.com/docs/triggers): "Triggers expire in three seconds." */
export const TRIGGER_TTL_MS = 3_000;

/**
 * views.open and views.push exchange a trigger: one the stand-in sent is refused once used (`exchanged_trigger_id`)
 * or past three seconds (`expired_trigger_id`). A trigger a test made up itself is taken as it comes.
 */
function triggerRefusal({ args, slack }: MethodCall): Answer | undefined {
  const trigger = slack.triggers.get(String(args.trigger_id));
  if (!trigger) return undefined;
  if (trigger.used) return refuse('exchanged_trigger_id');
  if (slack.now() - trigger.at > TRIGGER_TTL_MS) return refuse('expired_trigger_id');
  return undefined;
}

/** `views.open`/`push` (a modal), `views.publish` (a person's App Home) and `views.update`, with views' 100 blocks. */
function view(call: MethodCall): Answer {
  const { method, args, tenant, slack } = call;
  const exchanges = method === 'views.open' || method === 'views.push';
  const stale = exchanges ? triggerRefusal(call) : undefined;
  if (stale) return stale;
  const body = (args.view ?? {}) as Json;
  const bad = invalidBlocks(body.blocks ?? [], 'view');
  if (bad) return bad;
  if (Buffer.byteLength(JSON.stringify(body)) > VIEW_MAX_BYTES) return refuse('view_too_large');
  const problems = viewProblems(body);
  if (problems.length) return refuse('invalid_arguments', { response_metadata: { messages: problems } });
  const existing = method === 'views.update' ? tenant.views.find((v) => v.id === args.view_id) : undefined;
  if (method === 'views.update' && !existing) return refuse('not_found');
  const stored: StoredView = existing ?? {
    id: `V${slack.nextId()}`,
    via: method,
    ...(typeof args.user_id === 'string' && { user_id: args.user_id }),
    view: body,
  };
  stored.view = body;
  if (!existing) tenant.views.push(stored);
  const trigger = exchanges ? slack.triggers.get(String(args.trigger_id)) : undefined;
  if (trigger) trigger.used = true;
  return ok({ view: { id: stored.id, team_id: tenant.teamId, app_id: tenant.workspace.appId, ...body } });
}

export const viewMethods: Record<string, Handler> = {
  'views.open': view,
  'views.push': view,
  'views.publish': view,
  'views.update': view,
};
