/**
 * A person or bot in a stand-in workspace, as `users.info` returns it (users.info reference, "the user object").
 * Flags left out are false; `tz` defaults to Slack's America/Los_Angeles.
 */
export interface StandinUser {
  id: string;
  name: string;
  realName: string;
  /** What Slack shows: may be empty, then clients fall back to the real name. */
  displayName: string;
  isBot?: boolean;
  /** IANA zone: `users.info` answers `tz`, `tz_label` and `tz_offset` for the stand-in's clock (DST included). */
  tz?: string;
  isAdmin?: boolean;
  isOwner?: boolean;
  isPrimaryOwner?: boolean;
  /**
   * Enterprise Grid: an admin or owner of the whole organisation (`enterprise_user.is_admin` / `is_owner`), which
   * a workspace's admin (`is_admin`) is not.
   */
  isOrgAdmin?: boolean;
  isOrgOwner?: boolean;
  /** A guest: multi-channel guests are restricted; single-channel guests are restricted and ultra-restricted. */
  isRestricted?: boolean;
  isUltraRestricted?: boolean;
  deleted?: boolean;
}

/** A user group, mentioned as `@handle`. */
export interface StandinUserGroup {
  id: string;
  handle: string;
}

export interface StandinChannel {
  id: string;
  name: string;
  /** Slack Connect: the other organisations' teams this channel is shared with (`is_ext_shared`). */
  sharedWith?: string[];
  /**
   * False for a channel the bot is not in: `is_member` false, and posting or sharing a file there is refused with
   * `not_in_channel` (`channel_not_found` for a DM, an id starting with `D`, which Slack hides from a bot not in it).
   */
  botMember?: boolean;
  /** An archived channel: `is_archived`, refused with `is_archived` on a post, and left out of `users.conversations` with `exclude_archived`. */
  archived?: boolean;
  /**
   * Who may post, as Slack's chat.postMessage reference names its refusals: `read_only` takes no post from the app
   * (`restricted_action_read_only_channel`), `thread_only` no top-level post (`restricted_action_thread_only_channel`).
   */
  posting?: 'read_only' | 'thread_only';
  /**
   * A group DM (`mpim`, named `mpdm-…`; new ones have `C…` ids like channels): reading it needs the `mpim:` scopes,
   * and one the bot is not in is `channel_not_found` to it (adding the bot makes a new group DM).
   */
  groupDm?: boolean;
  /**
   * A DM between two people (`D…`; a slash command there names it `directmessage`): the bot is never in one, so it
   * is `channel_not_found` to the bot (posting and reading). The bot's own DM with a person is `D<user>`.
   */
  directMessage?: boolean;
}

/** Another organisation reached through Slack Connect: its people are not the workspace's, their team is theirs. */
export interface ConnectedTeam {
  teamId: string;
  teamDomain: string;
  teamName: string;
  users: StandinUser[];
}

/** A workspace the stand-in pretends to be: its team, people, channels and the tokens it accepts. */
export interface Workspace {
  teamId: string;
  teamDomain: string;
  teamName?: string;
  /** The app (one app, installed in every workspace): the same id everywhere. */
  appId: string;
  /** The bot user of the app; messages it posts carry this user and `botId`. */
  botUserId: string;
  botId: string;
  botToken: string;
  /** The app-level token (`xapp-`) for Socket Mode: the app's, so one for all workspaces. */
  appToken: string;
  users: StandinUser[];
  channels: StandinChannel[];
  userGroups: StandinUserGroup[];
  /** Enterprise Grid: the organisation this workspace belongs to. */
  enterpriseId?: string;
  /** Slack Connect: the organisations its shared channels reach. */
  connectedTeams?: ConnectedTeam[];
}

/** An Enterprise Grid organisation with an org-wide install: one bot token serves all its workspaces. */
export interface Enterprise {
  id: string;
  name: string;
  domain: string;
  botToken: string;
  botUserId: string;
  botId: string;
}

export const BOT_USER_ID = 'UBOT';
export const BOT_ID = 'BBOT';

/**
 * A small workspace: the Acme team (two people in Los Angeles, one in Auckland, an owner, a guest), the bot, a few
 * channels and #partners, shared through Slack Connect with Initech.
 */
export function defaultWorkspace(overrides: Partial<Workspace> = {}): Workspace {
  return {
    teamId: 'T1',
    teamDomain: 'acme',
    teamName: 'Acme',
    appId: 'A1',
    botUserId: BOT_USER_ID,
    botId: BOT_ID,
    botToken: 'xoxb-test-token',
    appToken: 'xapp-test-token',
    users: [
      { id: 'U123ALICE', name: 'alice', realName: 'Alice Archer', displayName: 'alice', tz: 'America/Los_Angeles' },
      { id: 'U456BOB', name: 'bob', realName: 'Bob Baker', displayName: 'Bob Lee', tz: 'Pacific/Auckland' },
      { id: 'U345CAROL', name: 'carol', realName: 'Carol Chen', displayName: '', tz: 'America/Los_Angeles' },
      { id: BOT_USER_ID, name: 'mintlify', realName: 'Mintlify', displayName: 'Mintlify', isBot: true },
      {
        id: 'U567OWEN',
        name: 'owen',
        realName: 'Owen Ngata',
        displayName: 'Owen',
        tz: 'Pacific/Auckland',
        isAdmin: true,
        isOwner: true,
        isPrimaryOwner: true,
      },
      {
        id: 'U678GUS',
        name: 'gus',
        realName: 'Gus Guest',
        displayName: 'gus (guest)',
        tz: 'America/Los_Angeles',
        isRestricted: true,
        isUltraRestricted: true,
      },
    ],
    channels: [
      { id: 'C123DOCS', name: 'docs' },
      { id: 'C234GENERAL', name: 'general' },
      { id: 'C345RANDOM', name: 'random' },
      { id: 'C456PARTNERS', name: 'partners', sharedWith: ['T9INITECH'] },
    ],
    userGroups: [{ id: 'S123DOCS', handle: 'docs-team' }],
    connectedTeams: [
      {
        teamId: 'T9INITECH',
        teamDomain: 'initech',
        teamName: 'Initech',
        users: [{ id: 'U9DAVE', name: 'dave', realName: 'Dave Dunn', displayName: 'Dave', tz: 'Europe/Berlin' }],
      },
    ],
    ...overrides,
  };
}

/**
 * Another workspace of the same app (its own team, domain, bot token, bot user, people and channels), for tests
 * with several installs. Ids carry the team id so nothing collides with the default workspace.
 */
export function otherWorkspace(teamId: string, teamDomain: string, overrides: Partial<Workspace> = {}): Workspace {
  const tag = teamId.replace(/^T/, '');
  const name = teamDomain.charAt(0).toUpperCase() + teamDomain.slice(1);
  return {
    teamId,
    teamDomain,
    teamName: name,
    appId: 'A1',
    botUserId: `U${tag}BOT`,
    botId: `B${tag}BOT`,
    botToken: `xoxb-${teamDomain}-token`,
    appToken: 'xapp-test-token',
    users: [
      { id: `U${tag}ANA`, name: 'ana', realName: `Ana of ${name}`, displayName: 'ana', tz: 'Pacific/Auckland' },
      { id: `U${tag}LEO`, name: 'leo', realName: `Leo of ${name}`, displayName: 'leo', tz: 'America/Los_Angeles' },
      { id: `U${tag}BOT`, name: 'mintlify', realName: 'Mintlify', displayName: 'Mintlify', isBot: true },
    ],
    channels: [
      { id: `C${tag}DOCS`, name: 'docs' },
      { id: `C${tag}GENERAL`, name: 'general' },
    ],
    userGroups: [],
    ...overrides,
  };
}
