import type { Config } from './config.js';

/** The Mintlify projects this bot serves, which one a conversation uses, and each one's admin key. */
export interface Projects {
  /** The project of every conversation not routed elsewhere, and of DMs. */
  readonly defaultProject: string;
  /** Every project the bot knows, default first. */
  readonly all: readonly string[];
  forChannel(channel: string): string;
  knows(project: string): boolean;
  /** The admin key for `project`: its own when it has one, else the default key. A secret: never log it. */
  keyFor(project: string): string;
}

export function createProjects(config: Pick<Config, 'mintlify'>): Projects {
  const { projectId, apiKey } = config.mintlify;
  return {
    defaultProject: projectId,
    all: [projectId],
    forChannel: () => projectId,
    knows: (project) => project === projectId,
    keyFor: () => apiKey,
  };
}
