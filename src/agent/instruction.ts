import type { Config } from '../config/config.js';
import { takeProjectOption } from '../config/project-option.js';
import { describeProjects, type Projects } from '../config/projects.js';
import type { Message } from '../slack/message.js';
import { conversationUsage, errors } from './messages.js';
import type { Turn } from './requests.js';

export type AgentCommand =
  | { kind: 'help' }
  | { kind: 'projects' }
  /** `--project` with no id after it. */
  | { kind: 'no-project-id'; prompt: string }
  | { kind: 'prompt'; prompt: string; project?: string };

/** What a person typed to the agent: `[--project <id>] <instruction>`, `projects`, or a request for usage. */
export function parseAgentCommand(text: string): AgentCommand {
  const raw = text.trim();
  if (/^projects$/i.test(raw)) return { kind: 'projects' };
  const option = takeProjectOption(raw);
  if ('missing' in option) return { kind: 'no-project-id', prompt: raw };
  const prompt = option.rest;
  if (!prompt || /^help$/i.test(prompt)) return { kind: 'help' };
  return option.project ? { kind: 'prompt', prompt, project: option.project } : { kind: 'prompt', prompt };
}

/** What a request to start a job comes to: a job to start on a project, or an answer instead. */
export type Instruction = { kind: 'start'; prompt: string; project: string } | { kind: 'answer'; message: Message };

/**
 * Reads what a person typed for `/agent` and the conversational doors alike, once per request: `help` and `projects`
 * are answered with `usage` (each door's own) and the projects this place knows; an unknown project is refused with
 * the instruction echoed; anything else starts a job on the chosen or the channel's project. `text` is as the door
 * has it and `decode` makes it plain for an echo (the `/agent` door reads Slack's wire text and decodes a start's
 * prompt itself, with names, after its ack); the conversational doors hand in plain text.
 */
export function readInstruction(
  text: string,
  projects: Projects,
  channel: string,
  usage: (projects: string) => Message,
  decode: (text: string) => string = (plain) => plain,
): Instruction {
  const request = parseAgentCommand(text);
  const here = describeProjects(projects, channel, '/agent');
  if (request.kind === 'help') return { kind: 'answer', message: usage(here) };
  if (request.kind === 'projects') {
    return { kind: 'answer', message: { text: describeProjects(projects, channel, '/agent', { all: true }) } };
  }
  if (request.kind === 'no-project-id' || (request.project && !projects.knows(request.project))) {
    const unknown = request.kind === 'prompt' && request.project ? decode(request.project) : undefined;
    return { kind: 'answer', message: errors.unknownProject(unknown, here, decode(request.prompt)) };
  }
  return { kind: 'start', prompt: request.prompt, project: request.project ?? projects.forChannel(channel) };
}

/** What a turn asks for, read with the projects as `deps` routes its channel. */
export function readTurnInstruction(
  deps: { projects: Projects; config: Pick<Config, 'followUps'> },
  turn: Pick<Turn, 'text' | 'channel' | 'files'>,
): Instruction {
  // Files without a word: the person is asked what to do with them, by name (a mention in the thread reads them).
  const names = turn.text.trim() ? [] : (turn.files ?? []).map((file) => file.name);
  if (names.length) return { kind: 'answer', message: errors.filesWithoutInstruction(names, turn.channel) };
  const usage = (here: string) => conversationUsage(deps.config.followUps, here);
  return readInstruction(turn.text, deps.projects, turn.channel, usage);
}
