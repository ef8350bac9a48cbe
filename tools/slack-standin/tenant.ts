import type { MessageStream } from './methods/streams.js';
import type { LinkShare } from './unfurls.js';
import type { ConnectedTeam, Enterprise, StandinChannel, StandinUser, Workspace } from './workspace.js';

/** A file as Slack holds it: shared by a person, or uploaded by the app (`files.getUploadURLExternal`). */
export interface UploadedFile {
  id: string;
  name: string;
  title?: string;
  /** The screen-reader description, as files.getUploadURLExternal's `alt_txt` gave it. */
  altText?: string;
  /** The content as text (a snippet, a CSV); binary files keep their bytes in `bytes`. */
  content: string;
  /** The bytes as uploaded (a PNG chart is not text). */
  bytes?: Buffer;
  channel?: string;
  /** Who shared it: a person, or the app's bot user. */
  user?: string;
  mimetype?: string;
  filetype?: string;
  prettyType?: string;
  /** `snippet` for text made in Slack's snippet editor, `hosted` for uploads. */
  mode?: 'snippet' | 'hosted';
  created?: number;
}

/** A message the stand-in stored, as `conversations.history`/`replies` return it. */
export interface StoredMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text?: string;
  blocks?: unknown;
  metadata?: unknown;
  user?: string;
  bot_id?: string;
  subtype?: string;
  team?: string;
  /** The id the person's client gave the message: kept through edits. */
  client_msg_id?: string;
  /** Set once the author edited it. */
  edited?: { user: string; ts: string };
  files?: ({ id: string; name: string; title: string; permalink?: string } & Record<string, unknown>)[];
  /** The root of an assistant thread (`subtype: 'assistant_app_thread'`) carries its title. */
  assistant_app_thread?: { title: string };
  /** Not shown as a message of its own: a deleted thread root's `tombstone`. */
  hidden?: boolean;
  /** Another app's post (`bot_message`): the name it posts under, and its legacy attachments. */
  username?: string;
  attachments?: Record<string, unknown>[];
  /** Emoji reactions (`reactions.add`), as Slack's message object lists them. */
  reactions?: { name: string; users: string[]; count: number }[];
}

/** A message only one person sees (`chat.postEphemeral`). */
export interface EphemeralMessage {
  channel: string;
  user: string;
  ts: string;
  thread_ts?: string;
  text?: string;
  blocks?: unknown;
}

export interface StoredView {
  id: string;
  /** `views.open`/`push` (a modal) or `views.publish` (a user's App Home). */
  via: string;
  user_id?: string;
  view: Record<string, unknown>;
}

/** A thread in the assistant pane (a DM with the app) and what the app set on it. */
export interface AssistantThread {
  userId: string;
  /** The person's DM with the app (`D…`). */
  channel: string;
  threadTs: string;
  /** Where the person was when they opened (or moved with) the pane. */
  context: { channel_id?: string; team_id?: string; enterprise_id?: string | null };
  /** The status shown under the thread; cleared when the app replies in it. */
  status?: { status: string; loading_messages?: string[] };
  /** Every status set, cleared ones included, oldest first. */
  statuses: string[];
  suggestedPrompts?: SuggestedPrompts;
  title?: string;
}

/** What `assistant.threads.setSuggestedPrompts` set: a title over up to four prompts. */
export interface SuggestedPrompts {
  title?: string;
  prompts: { title: string; message: string }[];
}

/** An agent session's lifecycle status (agents.sessions.setStatus). */
export type SessionStatus = 'active' | 'processing' | 'suspended' | 'closed';

/** An agent session: one thread's, with its status (every one set, oldest first), title and who started it. */
export interface AgentSession {
  channel: string;
  threadTs: string;
  status: SessionStatus;
  statuses: SessionStatus[];
  title?: string;
  /** Every title `agents.sessions.rename` set, oldest first. */
  titles?: string[];
  initiator?: string;
}

/**
 * What a person is looking at, as the Agent messaging experience describes it (`app_context_changed`, and
 * `app_context` on their DM messages): entities ordered by relevance, or none (`{}`).
 */
export interface AppContext {
  entities?: { type: string; value: unknown; team_id?: string; enterprise_id?: string }[];
}

/**
 * The app's messaging experience, as its manifest declares it: `assistant_view` (the assistant pane, for apps
 * created before 2026-06-30) or `agent_view` (the Agent messaging experience: the Messages tab is the agent's home).
 */
export type MessagingView = 'assistant_view' | 'agent_view';

/**
 * One workspace's side of the stand-in: its messages, ephemerals, files, views and assistant threads, and how it is
 * installed (its own bot token, or an organisation's org-wide install).
 */
export class Tenant {
  readonly messages: StoredMessage[] = [];
  readonly ephemerals: EphemeralMessage[] = [];
  readonly files: UploadedFile[] = [];
  readonly views: StoredView[] = [];
  readonly assistantThreads: AssistantThread[] = [];
  /** agent_view: the agent sessions of its threads (`agents.sessions.*`). */
  readonly agentSessions: AgentSession[] = [];
  /** The `link_shared` events sent, with what the app unfurled for each (`unfurls.ts`). */
  readonly linkShares: LinkShare[] = [];
  /** Streamed messages' state (`chat.startStream`), by `channel/ts`. */
  readonly streams = new Map<string, MessageStream>();
  /** agent_view: the prompts at the top of each person's Messages tab, by their DM with the app. */
  readonly messagesTabPrompts = new Map<string, SuggestedPrompts>();
  /** agent_view: what each person is looking at (by user id), stamped on their DM messages as `app_context`. */
  readonly viewing = new Map<string, AppContext>();
  /** Set when the app is installed org-wide: events say so and the organisation's token serves this workspace. */
  orgInstall?: Enterprise;
  /** Enterprise Grid: every workspace of this one's organisation (itself included). */
  organisation: Tenant[] = [];

  constructor(readonly workspace: Workspace) {}

  get teamId(): string {
    return this.workspace.teamId;
  }

  /** A person of this workspace, or of an organisation it reaches through Slack Connect (with their team id). */
  person(id: string): { user: StandinUser; teamId: string } | undefined {
    const own = this.workspace.users.find((u) => u.id === id);
    if (own) return { user: own, teamId: this.teamId };
    const team = this.connectedTeamOf(id);
    const user = team?.users.find((u) => u.id === id);
    return team && user ? { user, teamId: team.teamId } : undefined;
  }

  /**
   * Whoever wrote in this workspace: one of its people, of a Slack Connect organisation, or (Enterprise Grid) of
   * another workspace of its organisation, in a channel shared between them. With their team, and their enterprise
   * when it is this workspace's.
   */
  author(id: string): { user: StandinUser; teamId: string; enterpriseId?: string } | undefined {
    const enterpriseId = this.workspace.enterpriseId;
    const found = this.person(id);
    if (found) return { ...found, ...(enterpriseId && found.teamId === this.teamId && { enterpriseId }) };
    for (const sibling of this.organisation) {
      const user = sibling.workspace.users.find((u) => u.id === id);
      if (user && enterpriseId) return { user, teamId: sibling.teamId, enterpriseId };
    }
    return undefined;
  }

  connectedTeamOf(userId: string): ConnectedTeam | undefined {
    return this.workspace.connectedTeams?.find((t) => t.users.some((u) => u.id === userId));
  }

  channel(id: string): StandinChannel | undefined {
    return this.workspace.channels.find((c) => c.id === id);
  }

  /** Whether `channel` is this workspace's: one of its channels, or a DM (`D<user>`) with one of its people. */
  holds(channel: string): boolean {
    return !!this.channel(channel) || (channel.startsWith('D') && !!this.person(channel.slice(1)));
  }

  /**
   * Whether the bot is in `channel`, so Slack sends the app its messages (`message.*`, `app_mention`): not in a DM
   * between two people nor where it is listed `botMember: false`. An id the workspace does not list counts as in.
   */
  botIn(channel: string): boolean {
    const found = this.channel(channel);
    return !found || (found.directMessage !== true && found.botMember !== false);
  }

  message(channel: string, ts: string): StoredMessage | undefined {
    return this.messages.find((m) => m.channel === channel && m.ts === ts);
  }

  assistantThread(channel: string, threadTs: string): AssistantThread | undefined {
    return this.assistantThreads.find((t) => t.channel === channel && t.threadTs === threadTs);
  }

  agentSession(channel: string, threadTs: string): AgentSession | undefined {
    return this.agentSessions.find((s) => s.channel === channel && s.threadTs === threadTs);
  }

  /** What `chat.getPermalink` answers for a message. */
  permalink(channel: string, ts: string): string {
    return `https://${this.workspace.teamDomain}.slack.com/archives/${channel}/p${ts.replace('.', '')}`;
  }
}
