import type { StoredView } from '../tenant.js';
import { type Answer, type Handler, type MethodCall, ok, refuse } from './answer.js';
import { invalidBlocks } from './chat.js';

/** `views.open`/`push` (a modal), `views.publish` (a person's App Home) and `views.update`, with views' 100 blocks. */
function view({ method, args, tenant, slack }: MethodCall): Answer {
  const body = (args.view ?? {}) as Record<string, unknown>;
  const bad = invalidBlocks(body.blocks ?? [], 'view');
  if (bad) return bad;
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
  return ok({ view: { id: stored.id, team_id: tenant.teamId, app_id: tenant.workspace.appId, ...body } });
}

export const viewMethods: Record<string, Handler> = {
  'views.open': view,
  'views.push': view,
  'views.publish': view,
  'views.update': view,
};
