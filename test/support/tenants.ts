import { expect } from 'vitest';
import { keyFingerprint } from '../../tools/simulator/server.js';
import { eventEnvelope, type InstallChoice, otherWorkspace, type Tenant } from '../../tools/slack-standin/index.js';
import type { SlackCall } from '../fakes/fake-slack-api.js';
import { buttonsIn } from '../fixtures/slack.js';
import type { Harness } from './harness.js';
import { eventually } from './test-app.js';

/** The encryption key the tests' OAuth apps seal with (32 bytes, base64). */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 42).toString('base64');

/** Two more workspaces of the stand-in: Globex (T2) and Initrode (T3), each with its people and channels. */
export const GLOBEX = otherWorkspace('T2', 'globex');
export const INITRODE = otherWorkspace('T3', 'initrode');

/**
 * The environment of an app serving many workspaces against the harness's stand-in: no bot token and no Mintlify
 * settings (the test env's are blanked), the stand-in's OAuth app and authorize page.
 */
export function oauthEnv(h: Harness, env: Record<string, string> = {}): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: '',
    MINTLIFY_API_KEY: '',
    MINTLIFY_PROJECT_ID: '',
    SLACK_CLIENT_ID: h.slack.installs.app.clientId,
    SLACK_CLIENT_SECRET: h.slack.installs.app.clientSecret,
    SLACK_STATE_SECRET: 'test-state-secret',
    SLACK_OAUTH_AUTHORIZE_URL: `${h.slack.url}/oauth/v2/authorize`,
    SETTINGS_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ...env,
  };
}

/** What a person types into the connect modal. */
export interface ConnectForm {
  apiKey?: string;
  project?: string;
  routes?: string;
  docsUrl?: string;
}

/**
 * What people do with an app that serves many workspaces, through the harness: install it in a workspace, open
 * App Home, connect Mintlify through the modal, and the checks that a workspace's traffic used its own credentials.
 */
export class Workspaces {
  constructor(private readonly h: Harness) {}

  /**
   * The stand-in serves Globex and Initrode too, only tokens issued by an install work (not the fixtures'), and
   * the app's redirect URL is the booted app's (call again after a restart).
   */
  prepare(): void {
    for (const ws of [GLOBEX, INITRODE]) if (!this.h.slack.tenants.has(ws.teamId)) this.h.slack.addWorkspace(ws);
    for (const ws of [this.h.slack.workspace, GLOBEX, INITRODE]) this.h.slack.refuseToken(ws.botToken, 'invalid_auth');
    this.h.slack.installs.app.redirectUris = [`${this.h.app.url}/slack/oauth_redirect`];
  }

  /**
   * `userId` adds the app to `teamId` in a browser: /slack/install → Slack's authorize page (Allow) → the
   * callback, with the state cookie the install page set. Returns the page the browser ends on. `choice` picks
   * another install (org-wide, cancelled).
   */
  async install(teamId: string, userId: string, choice: InstallChoice = { teamId, userId }) {
    this.h.slack.installs.nextInstall(choice);
    const start = await fetch(`${this.h.app.url}/slack/install`, { redirect: 'manual' });
    expect(start.status, 'the install page redirects to Slack').toBe(302);
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const authorize = new URL(start.headers.get('location') ?? '');
    const allow = await fetch(authorize, { redirect: 'manual' });
    const back = await fetch(allow.headers.get('location') ?? '', { headers: { cookie } });
    return { status: back.status, html: await back.text() };
  }

  /** An Events API envelope from `teamId`, as Slack sends it. */
  envelope(teamId: string, event: Record<string, unknown>): Record<string, unknown> {
    return eventEnvelope(this.h.slack.tenant(teamId), event);
  }

  /** `userId` opens the app's Home tab in `teamId`; resolves with the view the app published for them. */
  async openHome(teamId: string, userId: string): Promise<Record<string, unknown>> {
    const before = this.published(teamId, userId).length;
    await this.h.deliver(
      this.envelope(teamId, { type: 'app_home_opened', user: userId, channel: `D${userId}`, tab: 'home' }),
    );
    const call = await eventually(() => this.published(teamId, userId)[before], 5_000, `Home for ${userId}`);
    return call.args.view as Record<string, unknown>;
  }

  /** An interaction from `userId` in `teamId` (a click, a modal submitted); resolves with the app's ack body. */
  async interact(teamId: string, userId: string, payload: Record<string, unknown>) {
    const tenant = this.h.slack.tenant(teamId);
    const org = tenant.orgInstall;
    const full = {
      team: { id: teamId, domain: tenant.workspace.teamDomain },
      ...(org && { enterprise: { id: org.id, name: org.name }, is_enterprise_install: true }),
      user: { id: userId, team_id: teamId },
      api_app_id: 'A1',
      token: 'legacy-verification-token',
      trigger_id: this.h.slack.trigger(),
      ...payload,
    };
    return this.h.interact(full);
  }

  /**
   * `userId` opens Home, clicks "Connect Mintlify" (or "Change") and submits the modal with `form`; resolves with
   * the submission's ack (`response_action: errors` when a field was refused).
   */
  async connect(teamId: string, userId: string, form: ConnectForm) {
    const home = await this.openHome(teamId, userId);
    const [open] = buttonsIn(home.blocks).filter((b) => b.button.action_id === 'mintlify_connect_open');
    if (!open) throw new Error(`no Connect button on ${userId}'s Home`);
    const opened = this.h.slack.callsTo('views.open').length;
    const actions = [{ action_id: open.button.action_id, block_id: open.blockId, type: 'button', value: '' }];
    await this.interact(teamId, userId, { type: 'block_actions', container: { type: 'view' }, actions });
    const modal = await eventually(() => this.h.slack.callsTo('views.open')[opened], 5_000, 'the connect modal');
    const field = (value?: string) => ({ value: { type: 'plain_text_input', value: value ?? null } });
    const view = modal.args.view as Record<string, unknown>;
    return this.interact(teamId, userId, {
      type: 'view_submission',
      view: {
        ...view,
        id: 'V1',
        team_id: teamId,
        state: {
          values: {
            api_key: field(form.apiKey),
            project: field(form.project),
            routes: field(form.routes),
            docs_url: field(form.docsUrl),
          },
        },
      },
    });
  }

  /** Acme (T1, by Alice) and Globex (T2, by Ana) install the app, and each connects its own project with its own key. */
  async installAcmeAndGlobex(keys: { acme: string; globex: string }): Promise<void> {
    await this.install('T1', 'U123ALICE');
    await this.install('T2', 'U2ANA');
    expect(await this.connect('T1', 'U123ALICE', { apiKey: keys.acme, project: 'proj_a' })).toBeUndefined();
    expect(await this.connect('T2', 'U2ANA', { apiKey: keys.globex, project: 'proj_b' })).toBeUndefined();
  }

  /** Home views published for `userId` in `teamId`, in order. */
  published(teamId: string, userId: string): SlackCall[] {
    return this.h.slack.callsTo('views.publish').filter((c) => c.teamId === teamId && c.args.user_id === userId);
  }

  /** Every Web API call the app made about one of `tenant`'s channels or people. */
  callsAbout(tenant: Tenant): SlackCall[] {
    const ids = new Set([
      ...tenant.workspace.channels.map((c) => c.id),
      ...tenant.workspace.users.map((u) => u.id),
      ...tenant.workspace.users.map((u) => `D${u.id}`),
    ]);
    return this.h.slack.calls.filter((c) =>
      [c.args.channel, c.args.user, c.args.user_id, c.args.channel_id].some((id) => ids.has(String(id))),
    );
  }

  /** The Mintlify requests about `project`, each with the fingerprint of the key it presented. */
  keysUsedFor(project: string): Set<string | undefined> {
    return new Set(this.h.sim.requests.filter((r) => r.path.includes(`/${project}/`)).map((r) => r.keyFingerprint));
  }
}

export const fingerprintOf = keyFingerprint;
