import { describeProjects, type Projects, takeProjectOption } from '../projects.js';
import { decodeSlackText } from '../slack/decode.js';
import { errors, type Message } from './messages.js';

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

/** What a request to start a job comes to: a job to start, or an answer instead (usage, projects, a refusal). */
export type JobRequest = { kind: 'start'; prompt: string; project?: string } | { kind: 'answer'; message: Message };

/**
 * Reads `[--project <id>] <instruction>`, `help` or `projects` (Slack wire text) for `/agent` and the conversational
 * doors alike; `usage` is each door's own help. An unknown project is refused with the instruction echoed.
 */
export function readJobRequest(
  text: unknown,
  projects: Projects,
  channel: string,
  usage: (projects: string) => Message,
): JobRequest {
  const request = parseAgentCommand(text);
  const here = describeProjects(projects, channel, '/agent');
  if (request.kind === 'help') return { kind: 'answer', message: usage(here) };
  if (request.kind === 'projects') return { kind: 'answer', message: { text: here } };
  if (request.kind === 'no-project-id' || (request.project && !projects.knows(request.project))) {
    const unknown = request.kind === 'prompt' ? request.project : undefined;
    return { kind: 'answer', message: errors.unknownProject(unknown, here, decodeSlackText(request.prompt)) };
  }
  return { kind: 'start', prompt: request.prompt, ...(request.project && { project: request.project }) };
}
