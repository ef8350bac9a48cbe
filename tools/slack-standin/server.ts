import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PeopleActions } from './actions.js';
import { handleRequest } from './dispatch.js';
import { Faults, type SlackFault } from './faults.js';
import { type FileServing, writeFile } from './files.js';
import { Installs } from './installs.js';
import type { Args } from './methods/answer.js';
import { streamShown } from './methods/streams.js';
import { type RateLimitOptions, RateLimits } from './rate-limits.js';
import { TokenRotation } from './rotation.js';
import { manifestBotEvents } from './scopes.js';
import { type MessagingView, type StoredMessage, Tenant } from './tenant.js';
import { Tokens } from './tokens.js';
import { manifestUnfurlDomains } from './unfurls.js';
import { messageWire } from './wire.js';
import { defaultWorkspace, type Enterprise, type StandinUser, type Workspace } from './workspace.js';

export type { SlackFault } from './faults.js';
export type { EphemeralMessage, StoredMessage, StoredView, UploadedFile } from './tenant.js';

/** One Web API call, response_url post or file upload the app made. Form fields holding JSON are decoded. */
export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  at: number;
  /** The workspace a Web API call acted in (by its token). */
  teamId?: string;
}

/** A stream's life without appends, in the stand-in: five minutes. */
export const DEFAULT_STREAM_EXPIRY_MS = 5 * 60_000;

export interface StandinOptions {
  /** The stand-in's clock (ms): time zones, rate-limit windows and OAuth code expiry follow it. */
  now?: () => number;
  /** Turns Slack's rate tiers on from the start (they are off by default). */
  rateLimits?: boolean | RateLimitOptions;
  /** The app's messaging experience (its manifest's `assistant_view` or `agent_view`); `assistant_view` by default. */
  view?: MessagingView;
}

/**
 * A stand-in for Slack on 127.0.0.1: the Web API (messages stored and read back, people, auth per token, Block Kit
 * limits, files, views, the assistant pane), several workspaces routed by token, Enterprise Grid org-wide installs,
 * OAuth v2 installs and uninstalls (`installs`), what people do as events (`people`), rate tiers (`rateLimits`),
 * `response_url`s and fault injection. Used by the tests and the playground.
 */
export class SlackStandin {
  readonly calls: SlackCall[] = [];
  /** The default workspace (the one the constructor was given). */
  readonly workspace: Workspace;
  readonly tenants = new Map<string, Tenant>();
  readonly enterprises = new Map<string, Enterprise>();
  readonly tokens = new Tokens();
  readonly now: () => number;
  readonly rateLimits: RateLimits;
  readonly installs = new Installs(this);
  readonly rotation = new TokenRotation(this);
  readonly people = new PeopleActions(this);
  /** The app's manifest view (one app, every workspace): events sent, suggested prompts. Set it to migrate. */
  view: MessagingView;
  /** The events the app subscribes to: the manifest's `bot_events`. A test removes one to unsubscribe. */
  readonly subscriptions = new Set(manifestBotEvents());
  /** The app's `unfurl_domains`: links to them get `link_shared`. The manifest's, unless a test sets others. */
  unfurlDomains: readonly string[] = manifestUnfurlDomains();
  /** Whether the workspace lets apps stream messages (`chat.startStream`); a test turns it off, as an older workspace. */
  streaming = true;
  /** How long a stream stays open without an append (Slack gives no figure): then `message_not_in_streaming_state`. */
  streamExpiryMs = DEFAULT_STREAM_EXPIRY_MS;
  /**
   * The `trigger_id`s the stand-in sent (`trigger()`): when, and whether a view was opened with it. Slack's triggers
   * "expire in three seconds" and "may only be used once" (api.slack.com/docs/triggers).
   */
  readonly triggers = new Map<string, { at: number; used: boolean }>();
  url = '';
  /** How files' bytes go out (a test slows it down); each download, with the bytes sent before the client hung up. */
  fileServing: FileServing = { chunkBytes: 64 * 1024, pauseMs: 0 };
  readonly filesServed: { fileId: string; bytes: number; of: number }[] = [];
  /** Set by a Socket Mode server attached to this stand-in: what `apps.connections.open` hands out. */
  socketModeUrl?: (() => string) | undefined;
  private readonly home: Tenant;
  /** Faults armed with `fail` (see faults.ts). */
  readonly faults = new Faults();
  /**
   * Block types answered `invalid_blocks` (unsupported) wherever they are sent, as by a workspace or client that does
   * not draw them yet: `refuseBlocks(DATA_BLOCK_TYPES)` makes the app show its fallbacks. `reset` accepts them again.
   */
  readonly refusedBlocks = new Set<string>();
  private server?: Server;
  private seq = 0;
  private lastTsMicros = 0;

  constructor(workspace: Workspace = defaultWorkspace(), options: StandinOptions = {}) {
    this.workspace = workspace;
    this.now = options.now ?? Date.now;
    this.view = options.view ?? 'assistant_view';
    this.rateLimits = new RateLimits(this.now);
    if (options.rateLimits) this.rateLimits.enable(options.rateLimits === true ? {} : options.rateLimits);
    this.home = this.addWorkspace(workspace);
    this.acceptToken(workspace.appToken, 'app');
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      void handleRequest(this, req)
        .then(async ({ status, headers, body, raw, served }) => {
          res.writeHead(status, raw === undefined ? { 'content-type': 'application/json', ...headers } : headers);
          if (served && Buffer.isBuffer(raw)) served(await writeFile(res, raw, this.fileServing));
          else res.end(raw ?? JSON.stringify(body));
        })
        // A test that set the stand-in up wrong (an unknown workspace) reads why, instead of a hung request.
        .catch((error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(error.message));
    });
    this.server.listen(port, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Base URL for the app's `SLACK_API_URL`. */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  /** A `response_url` for a slash command or action; posts to it are recorded as method `response_url:<id>`. */
  responseUrl(id = 'r1'): string {
    return `${this.url}/respond/${id}`;
  }

  // The default workspace's stores, as the tests have always read them.
  get messages(): StoredMessage[] {
    return this.home.messages;
  }
  get ephemerals() {
    return this.home.ephemerals;
  }
  get files() {
    return this.home.files;
  }
  get views() {
    return this.home.views;
  }

  /** Serves another workspace (its bot token, people, channels and stores). */
  addWorkspace(workspace: Workspace): Tenant {
    const tenant = new Tenant(workspace);
    this.tenants.set(workspace.teamId, tenant);
    this.tokens.accept(workspace.botToken, 'bot', { teamId: workspace.teamId });
    return tenant;
  }

  /**
   * An Enterprise Grid organisation of `workspaces`. Installed org-wide (the default), the organisation's one bot
   * token (and bot user) serves each of them and their events carry `is_enterprise_install`; with `orgWide: false`
   * each workspace installs the app itself (its own token and bot). Their events carry `enterprise_id`.
   */
  addEnterprise(enterprise: Enterprise, workspaces: Workspace[], { orgWide = true } = {}): Tenant[] {
    this.enterprises.set(enterprise.id, enterprise);
    if (orgWide) this.tokens.accept(enterprise.botToken, 'bot', { enterpriseId: enterprise.id });
    // One bot user for the whole organisation.
    const orgBot = (ws: Workspace): Workspace => ({
      ...ws,
      botUserId: enterprise.botUserId,
      botId: enterprise.botId,
      users: ws.users.map((u) => (u.id === ws.botUserId ? { ...u, id: enterprise.botUserId } : u)),
    });
    const tenants = workspaces.map((ws) => {
      const tenant = this.tenants.get(ws.teamId) ?? this.addWorkspace(orgWide ? orgBot(ws) : ws);
      tenant.workspace.enterpriseId = enterprise.id;
      if (orgWide) tenant.orgInstall = enterprise;
      return tenant;
    });
    for (const tenant of tenants) tenant.organisation = tenants;
    return tenants;
  }

  /** A workspace's side of the stand-in; the default one without an id. */
  tenant(teamId?: string): Tenant {
    const tenant = teamId === undefined ? this.home : this.tenants.get(teamId);
    if (!tenant) throw new Error(`the stand-in serves no workspace ${teamId}`);
    return tenant;
  }

  /** What a person sees of the streamed message `channel`/`ts` (see `streamShown`); undefined if it never streamed. */
  streamShown(channel: string, ts: string): ReturnType<typeof streamShown> | undefined {
    const stream = this.tenantOf(channel).streams.get(`${channel}/${ts}`);
    return stream && streamShown(stream, this.now(), this.streamExpiryMs);
  }

  /** The workspace `channel` belongs to (the default one when none claims it). */
  tenantOf(channel: string): Tenant {
    return [...this.tenants.values()].find((t) => t.holds(channel)) ?? this.home;
  }

  /** Lets `token` in as a bot (`xoxb-`) or app-level (`xapp-`) token of a workspace (the default one), and its scopes. */
  acceptToken(
    token: string,
    kind: 'bot' | 'app' = token.startsWith('xapp-') ? 'app' : 'bot',
    teamId?: string,
    scopes?: readonly string[],
  ): void {
    this.tokens.accept(token, kind, { teamId: teamId ?? this.home.teamId }, scopes);
  }

  /** Refuses `token` from now on, as Slack does a revoked token or a deactivated account. */
  refuseToken(token: string, error = 'token_revoked'): void {
    this.tokens.refuse(token, error);
  }

  /** Whether `token` is a live bot token acting for `tenant` (its own, or its organisation's org-wide one). */
  tokenServes(token: string, tenant: Tenant): boolean {
    const state = this.tokens.get(token);
    if (!state || this.tokens.refusal(token, this.now()) || state.kind === 'app') return false;
    return 'teamId' in state.owner
      ? state.owner.teamId === tenant.teamId
      : state.owner.enterpriseId === tenant.orgInstall?.id;
  }

  /** Makes the next `count` calls of `method` (those `when` accepts, if given) fail with `fault`. */
  fail(method: string, fault: SlackFault, count = 1, when?: (args: Args) => boolean): void {
    this.faults.add(method, fault, count, when);
  }

  refuseBlocks(types: readonly string[]): void {
    for (const type of types) this.refusedBlocks.add(type);
  }

  callsTo(method: string): SlackCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  reset(): void {
    this.calls.length = 0;
    this.faults.clear();
    this.refusedBlocks.clear();
    this.rateLimits.reset();
  }

  /** A person of the default workspace (tests may override who exists). */
  user(id: string): StandinUser | undefined {
    return this.home.workspace.users.find((u) => u.id === id);
  }

  /** A person as `tenant` sees them: its own people (the default workspace's through `user`), or Slack Connect's. */
  personIn(tenant: Tenant, id: string): { user: StandinUser; teamId: string; enterpriseId?: string } | undefined {
    if (tenant !== this.home) return tenant.author(id);
    const own = this.user(id);
    if (own) return { user: own, teamId: tenant.teamId };
    const team = tenant.connectedTeamOf(id);
    const user = team?.users.find((u) => u.id === id);
    return team && user ? { user, teamId: team.teamId } : undefined;
  }

  /**
   * A person writes `typed` in `channel` of the default workspace (in the thread of `threadTs`, when given): stored
   * as Slack stores it (its wire text, files with their permalinks), so `conversations.replies` reads it back. For
   * the events Slack sends with it, and other workspaces, see `people.says`. `at` (ms): written then, for a
   * conversation with a past (its messages before anything stored since).
   */
  postAs(
    user: string,
    channel: string,
    typed: string,
    options: { threadTs?: string; files?: { id: string; name: string }[]; at?: number } = {},
  ): StoredMessage & { text: string } {
    const message = {
      channel,
      ts: options.at === undefined ? this.nextTs() : tsAt(options.at * 1000),
      user,
      // The bot's own message carries its bot_id, as Slack's do (chat.update takes only the app's messages).
      ...(user === this.workspace.botUserId && { bot_id: this.workspace.botId }),
      text: messageWire(typed, this.workspace),
      ...(options.threadTs && { thread_ts: options.threadTs }),
      ...(options.files && {
        files: options.files.map((f) => ({ ...f, title: f.name, permalink: this.permalink(channel, f.id, f.name) })),
      }),
    };
    this.messages.push(message);
    return message;
  }

  /** A fresh `trigger_id` for a payload the stand-in sends, which views.open and views.push then check. */
  trigger(): string {
    const id = `${this.nextId()}.${Math.floor(this.now() / 1000)}.${randomUUID().replaceAll('-', '').slice(0, 32)}`;
    this.triggers.set(id, { at: this.now(), used: false });
    return id;
  }

  /** What `chat.getPermalink` answers for a message of the default workspace, and (given a name) a file's link. */
  permalink(channel: string, ts: string, fileName?: string): string {
    const base = `https://${this.workspace.teamDomain}.slack.com`;
    return fileName ? `${base}/files/${channel}/${ts}/${fileName}` : this.home.permalink(channel, ts);
  }

  /**
   * A fresh message ts, unique across workspaces: as Slack's, the time it was stored (seconds, and microseconds after
   * the dot), each one after the last, so `oldest`/`latest` and the age of a thread read as they do on Slack.
   */
  nextTs(): string {
    this.lastTsMicros = Math.max(Date.now() * 1000, this.lastTsMicros + 1);
    return tsAt(this.lastTsMicros);
  }

  nextId(): number {
    return ++this.seq;
  }
}

/** A message ts for a time in microseconds: seconds, and microseconds after the dot. */
const tsAt = (micros: number) => `${Math.floor(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, '0')}`;

export async function startSlackStandin(
  workspace?: Workspace,
  port = 0,
  options: StandinOptions = {},
): Promise<SlackStandin> {
  return new SlackStandin(workspace, options).start(port);
}
