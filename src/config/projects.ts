import { inlineCode } from '../slack/mrkdwn.js';
import type { Config } from './config.js';

/**
 * Where a workspace's projects are set, as what is said of a job whose project is no longer among them: connected
 * in App Home (many workspaces) or named in the app's configuration (one workspace).
 */
export type ProjectOrigin = 'connected' | 'configured';
export const projectOrigin = (config: Pick<Config, 'oauth'>): ProjectOrigin =>
  config.oauth ? 'connected' : 'configured';

/** The Mintlify projects this bot serves, which one a conversation uses, and each one's admin key. */
export interface Projects {
  /** The project of every conversation not routed elsewhere, and of DMs. */
  readonly defaultProject: string;
  /** Every project the bot knows (routed or keyed), default first. */
  readonly all: readonly string[];
  forChannel(channel: string): string;
  knows(project: string): boolean;
  /**
   * The admin key for `project`: its own when it has one, else the default key; none (empty) for a project not
   * served, so a job of a project removed since is never asked about with another project's key. A secret: never log it.
   */
  keyFor(project: string): string;
  /**
   * Projects served before and no longer (taken out of the configuration, or disconnected in App Home): their jobs'
   * threads are still told about, never asked about.
   */
  readonly former: readonly string[];
  /** Each project's docs site, for those that have one (links to it are unfurled: `src/unfurls/`). */
  readonly docsUrls: Readonly<Record<string, string>>;
}

/** Every project whose jobs' threads are still answered: those served now, then those served before. */
export const servedOrFormer = (projects: Pick<Projects, 'all' | 'former'>): readonly string[] => [
  ...projects.all,
  ...projects.former,
];

export function createProjects(config: Pick<Config, 'mintlify'>, former: readonly string[] = []): Projects {
  const { projectId, apiKey, channelProjects, projectKeys, docsUrls } = config.mintlify;
  // No project at all (a workspace not connected yet, or the app's own deps when it serves many): none known.
  const all = [...new Set([projectId, ...Object.values(channelProjects), ...Object.keys(projectKeys)])].filter(Boolean);
  const knows = (project: string) => all.includes(project);
  return {
    defaultProject: projectId,
    all,
    forChannel: (channel) => channelProjects[channel] ?? projectId,
    knows,
    keyFor: (project) => (knows(project) ? (projectKeys[project] ?? apiKey) : ''),
    former: [...new Set(former)].filter((project) => !knows(project)),
    docsUrls,
  };
}

/** The most of a help's section its list of projects takes: the help around it must fit too (SECTION_MAX_CHARS). */
const LISTED_MAX_CHARS = 1_000;
/** `/agent projects` answers in text alone, which holds 40,000 characters. */
const ALL_LISTED_MAX_CHARS = 30_000;

/**
 * Which project this channel uses and, when there are several, the others and how to pick one (mrkdwn). The list
 * is cut to what fits, with how many more and where they all are; `all`: as `/agent projects` lists them.
 */
export function describeProjects(
  projects: Projects,
  channel: string,
  command: '/agent' | '/visitors' | '/insights',
  { all = false } = {},
): string {
  const here = projects.forChannel(channel);
  const line = `This channel uses project ${inlineCode(here)}.`;
  if (projects.all.length === 1) return line;
  const names = projects.all.map((p) => (p === projects.defaultProject ? `${inlineCode(p)} (default)` : inlineCode(p)));
  const list = all
    ? listWithin(names, ALL_LISTED_MAX_CHARS, '')
    : listWithin(names, LISTED_MAX_CHARS, ` (${inlineCode('/agent projects')} lists them all)`);
  const example = command === '/agent' ? '/agent --project <id> <instruction>' : `${command} --project <id> [range]`;
  return `${line} Projects I know: ${list}. Pick another with ${inlineCode(example)}.`;
}

/** `names` joined with commas, as many as fit in `maxChars`, then how many more and `where` to see them. */
function listWithin(names: readonly string[], maxChars: number, where: string): string {
  let chars = 0;
  let shown = 0;
  for (const name of names) {
    chars += name.length + 2;
    if (chars > maxChars) break;
    shown++;
  }
  const more = names.length - shown;
  return more ? `${names.slice(0, shown).join(', ')} and ${more} more${where}` : names.join(', ');
}
