/** A person or bot in the stand-in workspace, as `users.info` returns it (the fields the app reads). */
export interface StandinUser {
  id: string;
  name: string;
  realName: string;
  /** What Slack shows: may be empty, then clients fall back to the real name. */
  displayName: string;
  isBot?: boolean;
}

/** A user group, mentioned as `@handle`. */
export interface StandinUserGroup {
  id: string;
  handle: string;
}

export interface StandinChannel {
  id: string;
  name: string;
}

/** A workspace the stand-in pretends to be: its team, people, channels and the tokens it accepts. */
export interface Workspace {
  teamId: string;
  teamDomain: string;
  appId: string;
  /** The bot user of the app; messages it posts carry this user and `botId`. */
  botUserId: string;
  botId: string;
  botToken: string;
  appToken: string;
  users: StandinUser[];
  channels: StandinChannel[];
  userGroups: StandinUserGroup[];
}

export const BOT_USER_ID = 'UBOT';
export const BOT_ID = 'BBOT';

/** A small workspace: the Acme team with two people, the bot, and a few channels. */
export function defaultWorkspace(overrides: Partial<Workspace> = {}): Workspace {
  return {
    teamId: 'T1',
    teamDomain: 'acme',
    appId: 'A1',
    botUserId: BOT_USER_ID,
    botId: BOT_ID,
    botToken: 'xoxb-test-token',
    appToken: 'xapp-test-token',
    users: [
      { id: 'U123ALICE', name: 'alice', realName: 'Alice Archer', displayName: 'alice' },
      { id: 'U456BOB', name: 'bob', realName: 'Bob Baker', displayName: 'Bob Lee' },
      { id: 'U345CAROL', name: 'carol', realName: 'Carol Chen', displayName: '' },
      { id: BOT_USER_ID, name: 'mintlify', realName: 'Mintlify', displayName: 'Mintlify', isBot: true },
    ],
    channels: [
      { id: 'C123DOCS', name: 'docs' },
      { id: 'C234GENERAL', name: 'general' },
      { id: 'C345RANDOM', name: 'random' },
    ],
    userGroups: [{ id: 'S123DOCS', handle: 'docs-team' }],
    ...overrides,
  };
}
