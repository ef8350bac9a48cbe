import type { Message } from '../../slack/message.js';
import { clipEscaped, inlineCode, quote, safeLink, truncate } from '../../slack/mrkdwn.js';
import type { ConnectionChange, PublicSettings, Steward } from '../connection.js';

/** Every word the many-workspace mode says: App Home's Mintlify section, the connect modal, the refusals. */

/** Who may connect Mintlify here, for people who may not (see `permission.ts`). */
export function whoCanConnect(steward: Steward | undefined, orgWide: boolean): string {
  if (orgWide) return 'an admin or owner of your organisation';
  const admins = 'a workspace admin or owner';
  if (!steward) return admins;
  return `<@${steward.userId}> (${steward.as === 'installer' ? 'who installed me' : 'who connected it'}) or ${admins}`;
}

/** `who` starting a sentence. */
const opening = (who: string) => who.charAt(0).toUpperCase() + who.slice(1);

const ECHO_MAX_CHARS = 3_000;
const TEXT_MAX_CHARS = 40_000;

/** `head`, then the person's text quoted, to run again once it is connected. */
function withText(head: string, text: string): Message {
  if (!text.trim()) return { text: head };
  const body = `${head}\n\nYour text, to run again once it is connected:\n`;
  return { text: `${body}${clipEscaped(quote(text, ECHO_MAX_CHARS), TEXT_MAX_CHARS - body.length)}` };
}

/**
 * The private answer to `/agent`, a mention, a DM or `/visitors` before the workspace connected Mintlify, or once
 * it was disconnected (`disconnected`).
 */
export function notConnected(who: string, text: string, disconnected = false): Message {
  const head =
    `:electric_plug: Mintlify is not connected to this workspace ${disconnected ? 'any more' : 'yet'}, so I can't ` +
    `run this. ${opening(who)} can connect it: open my *Home* tab and click *Connect Mintlify*.`;
  return withText(head, text);
}

/** Why a workspace without Mintlify did not run something: its answers pick their words by it. */
export type NotConnected = 'not_yet' | 'disconnected' | 'unreadable';

/**
 * The same answer on a form submitted without Mintlify (a form opened before a Disconnect): said on its field, so
 * the form stays open with the person's text in it. Plain text, as field errors are.
 */
export function notConnectedField(why: NotConnected): string {
  const what =
    why === 'unreadable'
      ? "I can't read this workspace's Mintlify connection"
      : `Mintlify is not connected to this workspace ${why === 'disconnected' ? 'any more' : 'yet'}`;
  return `${what}, so nothing was sent. Copy your text and run it again once Mintlify is connected (my Home tab says who can connect it).`;
}

/** The same answer when the workspace's settings are stored but this deployment can no longer open them. */
export function settingsUnreadable(who: string, text: string): Message {
  const head =
    ":warning: I can't read this workspace's Mintlify connection (it was saved under an encryption key this app " +
    `no longer has), so I can't run this. ${opening(who)} can connect it again: open my *Home* tab ` +
    'and click *Connect Mintlify*. Whoever runs this app finds why in its log (`mintlify.settings_unreadable`).';
  return withText(head, text);
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** App Home's Mintlify section: what is connected (the key only as its fingerprint), and who can change it. */
export const home = {
  title: 'Mintlify',
  notConnected: 'Mintlify is not connected yet: connect your project to start agent jobs and read visitors here.',
  notConnectedAsk: (who: string) => `Mintlify is not connected yet. ${opening(who)} can connect it here.`,
  /** Settings stored under an encryption key this deployment no longer has (`mintlify.settings_unreadable`). */
  unreadable: (who: string) =>
    ":warning: I can't read this workspace's Mintlify connection: it was saved under an encryption key this app no " +
    `longer has, so nothing runs here. ${opening(who)} can connect it again here.`,
  connected(settings: PublicSettings, showKey: boolean): string {
    const routes = Object.entries(settings.channelProjects).map(([c, p]) => `<#${c}> → ${inlineCode(p)}`);
    return [
      `Connected to project ${inlineCode(settings.projectId)}${showKey ? ` with key ${inlineCode(settings.fingerprint)}` : ''}.`,
      ...(routes.length ? [`Channels on other projects: ${routes.join(', ')}.`] : []),
      ...(settings.docsUrl
        ? [`Links to ${safeLink(settings.docsUrl) ?? inlineCode(settings.docsUrl)} are unfurled with their readers.`]
        : []),
      `Last changed by <@${settings.changedBy}> on ${day(settings.changedAt)}.`,
    ].join('\n');
  },
  changesTitle: '*Recent changes*',
  changeLine(c: ConnectionChange): string {
    const project = inlineCode(c.project ?? '');
    const what = {
      installed: 'installed the app',
      reinstalled: 'installed the app again',
      connected: `connected project ${project}`,
      changed: `changed the ${c.keyChanged ? 'key' : 'settings'} (project ${project})`,
      disconnected: 'disconnected Mintlify',
    }[c.change];
    return `${day(c.at)} · <@${c.user}> ${what}`;
  },
  connect: 'Connect Mintlify',
  change: 'Change',
  disconnect: 'Disconnect',
  confirmTitle: 'Disconnect Mintlify?',
  confirmText:
    'The key is deleted and nobody here can start agent jobs or read visitors until Mintlify is connected again.',
};

export const modal = {
  title: 'Connect Mintlify',
  submit: 'Connect',
  keyLabel: 'Admin API key',
  keyHint: 'Mintlify dashboard → Settings → API keys. Stored encrypted; shown afterwards only as mint_…abcd.',
  keyHintKeep: (fingerprint: string) => `Leave empty to keep ${fingerprint}. Stored encrypted.`,
  projectLabel: 'Project id',
  projectHint: 'The project the agent works on and /visitors reads, in every channel not routed below.',
  routesLabel: 'Channels on other projects (optional)',
  routesHint: 'One per line: a channel id, a colon and a project id, e.g. C0123ABCD:proj_api (channel details → id).',
  docsLabel: 'Docs site (optional)',
  docsHint: 'Its https address, e.g. https://docs.example.com: links to it are unfurled with their readers.',
};

/** Why a field of the modal was refused: said on that field, in the submission's answer. */
export const fieldErrors = {
  keyMissing: 'Enter an admin API key: it starts with mint_.',
  keyShape: 'An admin API key starts with mint_ and has only letters, digits and - . _ ~ + / = (no spaces).',
  keyRefused: 'Mintlify refused this key. Check that it is an admin API key of your organisation.',
  projectShape: 'A project id has letters, digits, _ or - (see the dashboard).',
  projectUnknown: (project: string) => `This key has no project ${project}: check the id in the dashboard.`,
  projectRefused: (project: string, message: string) => `Mintlify refused project ${project}: ${message}`,
  routes: (problem: string) => `${problem.replace(/^entry/, 'Line')}. Write one channel id:project id per line.`,
  docsUrl: (typed: string) =>
    `“${truncate(typed, 100)}” is not the https address of a site, e.g. https://docs.example.com (no ? or #).`,
  docsUrlCredentials: 'Leave out the user name and password: the address is shown to everyone in the workspace.',
  serviceDown: 'Mintlify did not answer, so nothing was saved. Try again in a minute.',
  storeDown: 'Storage did not answer, so nothing was saved. Try again in a minute.',
  notAllowed: (who: string) => `Only ${who} can change this.`,
  changedMeanwhile:
    'The connection changed while you were editing (someone else saved or disconnected it), so nothing was saved. Close this form and open it again from my Home tab.',
};

/** What a click in App Home that did nothing says, by DM (Home has no private replies). */
export const homeNotes = {
  notAllowed: (who: string): Message => ({ text: `:no_entry: ${fieldErrors.notAllowed(who)}` }),
  formNotOpened: (code: string): Message => ({
    text: `:warning: Slack did not open the form (${inlineCode(code, 60)}). Click *Connect Mintlify* in my *Home* tab again.`,
  }),
  notDisconnected: {
    text: ':warning: Storage did not answer, so Mintlify is still connected. Click *Disconnect* in my *Home* tab again in a minute.',
  } satisfies Message,
};

/**
 * The DM to the person who connected Mintlify when someone else changed or disconnected their connection; `orgWide`:
 * an org-wide install's, which only the organisation's admins and owners manage.
 */
export function replacedNotice(by: string, change: ConnectionChange, orgWide = false): Message {
  const where = orgWide ? 'this organisation' : 'this workspace';
  if (change.change === 'disconnected') {
    return {
      text:
        `:electric_plug: <@${by}> disconnected the Mintlify key you connected in ${where}. Nobody here can ` +
        'start agent jobs or read visitors until it is connected again (my *Home* tab).',
    };
  }
  const what = change.keyChanged
    ? 'replaced the Mintlify key you connected'
    : 'changed the Mintlify connection you made';
  const whose = orgWide
    ? 'the organisation’s admins’ and owners’'
    : 'theirs to change now, and the workspace admins’ and owners’';
  return {
    text:
      `:key: <@${by}> ${what} in ${where}: it now runs on project ${inlineCode(change.project ?? '')}. ` +
      `It is ${whose} (my *Home* tab lists every change).`,
  };
}

/** The page the browser shows at the end of an install. */
export const installPages = {
  /** `orgWide`: an org-wide install, which only the organisation's admins and owners connect. */
  installed: (team: string, homeUrl: string, orgWide = false) =>
    `<h1>Mintlify is installed in ${team}</h1><p>Next: open <a href="${homeUrl}">Mintlify's Home tab in Slack</a> ` +
    'and click <b>Connect Mintlify</b> to connect your project with its admin API key. ' +
    (orgWide
      ? 'The organisation’s admins and owners can do it. '
      : 'The workspace’s admins and owners can do it, and the person who installed the app first (installing it ' +
        'again changes nobody’s rights). ') +
    'Then invite <code>@Mintlify</code> to a channel and try <code>/agent</code> or <code>/visitors</code>.</p>',
  failed: (reason: string, installUrl: string) =>
    `<h1>Mintlify was not installed</h1><p>${reason}</p><p><a href="${installUrl}">Try again</a>.</p>`,
};

/** Why an install ended on the failure page, in the installing person's words (plain text: the page escapes it). */
export const installFailures = {
  cancelled: 'You cancelled the install on Slack’s page, so nothing was installed.',
  /** The state the browser brought back is missing, not this browser's, or older than 10 minutes. */
  stale:
    'This install was started in another browser or more than 10 minutes ago (or its link was already used), so ' +
    'nothing was installed. Start it again in this browser.',
  codeUsed: 'Slack’s code for this install was already used or has expired, so nothing was installed.',
  slackDown: 'Slack did not answer, so nothing was installed. Try again in a minute.',
  storeDown: 'My storage did not answer, so the install was not saved. Try again in a minute.',
  refused: (code: string) => `Slack did not complete the install (it answered ${code}).`,
};
