import { createHmac } from 'node:crypto';
import type { Workspace } from './workspace.js';

/**
 * What Slack puts on the wire for what a person typed (formatting reference, "Retrieving messages"): `&`, `<` and
 * `>` HTML-escaped in slash commands (`should_escape: false`) and messages; messages also carry links, people,
 * channels, user groups and broadcasts as `<…>` markup.
 */
export function escapeWire(typed: string): string {
  return typed.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A slash command's `text` as Slack sends it when the command does not ask for escaped entities. */
export function slashCommandWire(typed: string): string {
  return escapeWire(typed);
}

/**
 * A message event's `text` as Slack sends it: a link as `<url>` (`[label](url)`, the composer's link, as
 * `<url|label>`), `@name` as `<@U…>`, `#channel` as `<#C…|channel>`, `@here`/`@channel`/`@everyone` as `<!here>`…,
 * a user group `@handle` as `<!subteam^S…|@handle>`; a name nobody has stays text. Everything else is escaped.
 */
export function messageWire(typed: string, workspace: Workspace): string {
  const TOKEN =
    /\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)|(https?:\/\/[^\s<>]+[^\s<>.,;:!?)])|@(here|channel|everyone)\b|@([\w.-]*\w)|#([\w-]+)/g;
  let out = '';
  let last = 0;
  for (const m of typed.matchAll(TOKEN)) {
    out += escapeWire(typed.slice(last, m.index));
    last = m.index + m[0].length;
    const [whole, label, labelled, bare, broadcast, name, channel] = m;
    if (labelled) out += `<${escapeWire(labelled)}|${escapeWire(label ?? '')}>`;
    else if (bare) out += `<${escapeWire(bare)}>`;
    else if (broadcast) out += `<!${broadcast}>`;
    else if (name !== undefined) out += mention(name, workspace) ?? escapeWire(whole);
    else if (channel !== undefined) {
      const found = workspace.channels.find((c) => c.name === channel);
      out += found ? `<#${found.id}|${found.name}>` : escapeWire(whole);
    }
  }
  return out + escapeWire(typed.slice(last));
}

function mention(name: string, workspace: Workspace): string | undefined {
  const lower = name.toLowerCase();
  // People of Slack Connect organisations are mentioned like the workspace's own.
  const people = [...workspace.users, ...(workspace.connectedTeams ?? []).flatMap((t) => t.users)];
  const user = people.find((u) => u.name === lower || u.displayName.toLowerCase() === lower);
  if (user) return `<@${user.id}>`;
  const group = workspace.userGroups.find((g) => g.handle === lower);
  return group ? `<!subteam^${group.id}|@${group.handle}>` : undefined;
}

/** Signs a request body the way Slack does: `v0=` HMAC-SHA256 over `v0:<timestamp>:<body>` with the signing secret. */
export function slackSignature(body: string, timestamp: number, secret: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}
