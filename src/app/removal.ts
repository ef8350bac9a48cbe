import type { Context } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../deps.js';
import { slackErrorCode } from '../slack/errors.js';
import { gate } from '../slack/gate.js';
import { quote } from '../slack/mrkdwn.js';
import { removalEventOf } from '../slack/payload.js';
import type { Doors } from '../slack/router.js';
import { NOT_LISTED, type TeamLists, teamLists, unlisted } from '../slack/team-lists.js';
import type { RefusalReason } from '../slack/token-refusals.js';
import { type WorkspaceRef, workspaceOf } from '../workspace-ref.js';

/**
 * A removal event, or a refusal on a call the app made (`token-refusals.ts`): `token_refused`, the token, or
 * `team_access_not_granted`, an org-wide token in one workspace; or `team_access_granted`: an org-wide install added
 * back to workspaces it was taken out of.
 */
export type RemovalReason =
  | 'app_uninstalled'
  | 'tokens_revoked'
  | 'team_access_revoked'
  | 'team_access_granted'
  | RefusalReason;

/** What Slack's `team_access_*` events change, once `auth.teams.list` confirms it: a workspace out, or back. */
export type TeamAccess = 'revoked' | 'granted';

/** What a removal event says is gone, before anything believes it. */
export interface RemovalClaim {
  reason: RemovalReason;
  refs: WorkspaceRef[];
  /** `tokens_revoked`: the bot users whose tokens went (the app's own must be among them). */
  botUsers?: string[];
}

/** Slack's answer to renewing a rotating bot token: the new token (stored), or why Slack refused. */
export type Renewal = { token: string } | { refused: string };

/** A workspace the app serves, as a removal sees it: the token to confirm with (the app's own when left out). */
export interface ServedWorkspace {
  token?: string;
  botUserId: string;
  /** With Slack's token rotation: renews the token, for when `auth.test` says it expired. */
  renew?: () => Promise<Renewal>;
}

/** Where removals go: the one workspace's state, or the installations of many. */
export interface RemovalTarget {
  /** The workspace, if the app serves it. */
  served(ref: WorkspaceRef): Promise<ServedWorkspace | undefined>;
  /** `gone`: the token Slack refused (the app's own when unset); an installation holding another one stays. */
  remove(ref: WorkspaceRef, reason: RemovalReason, gone?: string): Promise<void>;
  /** Whether the request's workspace no longer has the app. */
  removed(context: Context): boolean;
  /**
   * An org-wide install taken out of the workspace (`revoked`) or added back (`granted`), the organisation's other
   * workspaces untouched. Absent with one workspace, whose token serves the others.
   */
  teamAccess?(ref: WorkspaceRef, change: TeamAccess): Promise<void>;
}

/** `auth.test` answers these once a token is gone (uninstalled, revoked). */
const GONE = new Set(['invalid_auth', 'account_inactive', 'token_revoked']);

/** The claim in a removal event; none for a `tokens_revoked` of user tokens only (not the app's concern). */
export function claimOf(wire: unknown, context: Context): RemovalClaim | undefined {
  const event = removalEventOf(wire);
  switch (event.type) {
    case 'app_uninstalled':
      return { reason: 'app_uninstalled', refs: [workspaceOf(context)] };
    case 'tokens_revoked': {
      const botUsers = event.tokens?.bot ?? [];
      return botUsers.length > 0 ? { reason: 'tokens_revoked', refs: [workspaceOf(context)], botUsers } : undefined;
    }
    case 'team_access_revoked':
    case 'team_access_granted': {
      // Sent to an org-wide install about some of its organisation's workspaces: each is served by the organisation's
      // installation, so that is what is looked up and its token that confirms.
      const teams = event.team_ids ?? [];
      const org = context.enterpriseId ? { enterpriseId: context.enterpriseId } : {};
      return { reason: event.type, refs: teams.map((teamId) => ({ teamId, ...org })) };
    }
    default:
      return undefined;
  }
}

/**
 * Why a claim is not acted on, or once Slack confirmed it, the token found gone (the app's own when unset), or for
 * `team_access_*`, the workspace no longer (or again) among those the org token reaches.
 */
export type Confirmation = { why: string } | { gone: string | undefined } | { teamAccess: TeamAccess };

/** Asks Slack whether the token serving `ref` is gone, or for `team_access_*` whether it still reaches `ref`. */
export async function confirmation(
  slack: WebClient,
  target: Pick<RemovalTarget, 'served'>,
  claim: RemovalClaim,
  ref: WorkspaceRef,
  lists: TeamLists = teamLists(slack),
): Promise<Confirmation> {
  const served = await target.served(ref);
  if (!served) return { why: 'not_served' };
  if (claim.botUsers && !claim.botUsers.includes(served.botUserId)) return { why: 'other_bot' };
  const teamAccess = claim.reason.startsWith('team_access_');
  const ask = teamAccess ? (token?: string) => unlisted(lists, token, ref.teamId) : refusalOf.bind(null, slack);
  let token = served.token;
  let code = await ask(token);
  // An expired rotating token says nothing of a removal: Slack refuses to renew one that is gone.
  if (code === 'token_expired' && served.renew) {
    const renewal = await served.renew();
    if ('refused' in renewal) {
      return renewal.refused === 'invalid_refresh_token' ? { gone: token } : { why: renewal.refused };
    }
    token = renewal.token;
    code = await ask(token);
  }
  if (code !== undefined && code !== NOT_LISTED) return GONE.has(code) ? { gone: token } : { why: code };
  const listed = code === undefined;
  switch (claim.reason) {
    case 'team_access_revoked':
    case 'team_access_not_granted':
      return listed ? { why: 'still_reachable' } : { teamAccess: 'revoked' };
    case 'team_access_granted':
      return listed ? { teamAccess: 'granted' } : { why: 'not_reachable' };
    default:
      return { why: 'token_accepted' };
  }
}

/** Why Slack refuses `token` (the client's own when left out), or `undefined` when `auth.test` accepts it. */
async function refusalOf(slack: WebClient, token: string | undefined): Promise<string | undefined> {
  try {
    await slack.auth.test(token ? { token } : {});
    return undefined;
  } catch (error) {
    return slackErrorCode(error);
  }
}

/**
 * Why a removed workspace's command was not run, and who brings the app back. `lost`: the workspace's installation
 * is missing after the store lost its data (many workspaces: installations live in the store); Slack said nothing.
 */
const NOT_RUN = {
  removed:
    'Mintlify no longer has access to this workspace (Slack says the app was uninstalled or its token revoked), so ' +
    'nothing was run. Ask a workspace admin to install it again',
  takenOut:
    'Mintlify no longer has access to this workspace (an admin of your organisation took the app out of it), so ' +
    'nothing was run. Ask an organisation admin to add the app to this workspace again',
  lost:
    'Mintlify lost this workspace’s installation (the app’s storage lost its data), so nothing was run. Ask a ' +
    'workspace admin to install the app again from its install page (`/slack/install` on the app’s address) and ' +
    'connect Mintlify again',
} as const;

/** The sentence a removed workspace's command gets, with what the person typed. */
function removedAnswer(context: Context, command: string, text: string): string {
  const why = context.installationLost === true ? 'lost' : context.workspaceTakenOut === true ? 'takenOut' : 'removed';
  return `:no_entry: ${NOT_RUN[why]}, then send it once more:\n${quote(`${command} ${text}`.trim())}`;
}

/** A removed workspace's requests stop here: a command is answered in its ack, anything else acknowledged. */
const removedGate = (target: Pick<RemovalTarget, 'removed'>, log: Deps['log']) =>
  gate(
    (context) => target.removed(context),
    (command, text, context) => removedAnswer(context, command, text),
    (context) => log.info('slack.workspace_removed_request', { team: context.teamId }),
  );

/** A process's removals: claims believed one at a time, and where the believed ones go. */
export interface Removals {
  target: RemovalTarget;
  believe(claim: RemovalClaim): Promise<void>;
}

/**
 * A removal event (`app_uninstalled`, `tokens_revoked` for the app's bot user, `team_access_revoked`), or Slack
 * refusing a token on a call, stops the app only for a workspace it serves, and only once `auth.test` with that
 * workspace's token says the token is gone (`auth.teams.list` with the organisation's, that it no longer reaches the
 * workspace, for `team_access_*`): a replayed or stray event (Slack's published example names team T1H9RESGL) or a
 * passing refusal changes nothing. With many workspaces, everything that workspace stored is
 * deleted; with one, every instance stops.
 */
export function createRemovals(root: Pick<Deps, 'log' | 'slack'>, target: RemovalTarget): Removals {
  // One at a time: Slack sends tokens_revoked and app_uninstalled together, and the second must see the first's
  // removal (or a reinstall since), not act on the installation both read.
  let removing = Promise.resolve();
  const believe = async (claim: RemovalClaim) => {
    const lists = teamLists(root.slack);
    const ignored = (ref: WorkspaceRef, why: string) =>
      root.log.warn('slack.removal_ignored', {
        reason: claim.reason,
        team: ref.teamId,
        enterprise: ref.enterpriseId,
        why,
      });
    for (const ref of claim.refs) {
      const confirmed = await confirmation(root.slack, target, claim, ref, lists);
      if ('why' in confirmed) ignored(ref, confirmed.why);
      else if (!('teamAccess' in confirmed)) await target.remove(ref, claim.reason, confirmed.gone);
      else if (target.teamAccess) await target.teamAccess(ref, confirmed.teamAccess);
      else ignored(ref, 'single_workspace'); // its one token still serves the organisation's other workspaces
    }
  };
  return {
    target,
    believe(claim) {
      removing = removing
        .then(() => believe(claim))
        .catch((error: unknown) => root.log.error('slack.removal_failed', { reason: claim.reason, error }));
      return removing;
    },
  };
}

/** The removal events, and the answer a removed workspace's requests get. */
export function registerRemoval(app: Doors, log: Deps['log'], removals: Removals): void {
  app.use(removedGate(removals.target, log));
  const heard = async ({ event, context }: { event: unknown; context: Context }) => {
    const claim = claimOf(event, context);
    if (claim) await removals.believe(claim);
  };
  for (const type of ['app_uninstalled', 'tokens_revoked', 'team_access_revoked', 'team_access_granted']) {
    app.event(type, heard);
  }
}
