import { describe, expect, it } from 'vitest';
import { parseAgentCommand } from '../../../src/agent/instruction.js';

describe('parseAgentCommand', () => {
  it.each(['', '  ', 'help', ' Help '])('treats %j as a request for usage', (text) => {
    expect(parseAgentCommand(text)).toEqual({ kind: 'help' });
  });

  it('trims the prompt', () => {
    expect(parseAgentCommand('  fix the links \n')).toEqual({ kind: 'prompt', prompt: 'fix the links' });
  });

  it('keeps prompts that merely mention help', () => {
    expect(parseAgentCommand('help me document webhooks')).toEqual({
      kind: 'prompt',
      prompt: 'help me document webhooks',
    });
  });
});

describe('parseAgentCommand with a project', () => {
  it('takes a leading --project override', () => {
    expect(parseAgentCommand('--project proj_c Fix the links')).toEqual({
      kind: 'prompt',
      prompt: 'Fix the links',
      project: 'proj_c',
    });
  });

  it('answers `projects` with the list, and `--project` alone or without an instruction as such', () => {
    expect(parseAgentCommand(' Projects ')).toEqual({ kind: 'projects' });
    expect(parseAgentCommand('--project')).toEqual({ kind: 'no-project-id', prompt: '--project' });
    expect(parseAgentCommand('--project proj_c')).toEqual({ kind: 'help' });
  });
});
