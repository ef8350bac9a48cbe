import { takeProjectOption } from '../projects.js';

export type AgentCommand =
  | { kind: 'help' }
  | { kind: 'projects' }
  /** `--project` with no id after it. */
  | { kind: 'no-project-id'; prompt: string }
  | { kind: 'prompt'; prompt: string; project?: string };

/** `/agent` text: `[--project <id>] <instruction>`, `projects`, or a request for usage (empty, `help`). */
export function parseAgentCommand(text: unknown): AgentCommand {
  // A malformed form body can repeat `text`, which arrives as an array.
  const raw = typeof text === 'string' ? text.trim() : '';
  if (/^projects$/i.test(raw)) return { kind: 'projects' };
  const option = takeProjectOption(raw);
  if ('missing' in option) return { kind: 'no-project-id', prompt: raw };
  const prompt = option.rest;
  if (!prompt || /^help$/i.test(prompt)) return { kind: 'help' };
  return option.project ? { kind: 'prompt', prompt, project: option.project } : { kind: 'prompt', prompt };
}
