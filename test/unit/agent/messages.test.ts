import { describe, expect, it } from 'vitest';
import { conversationUsage, errors, usage } from '../../../src/agent/messages.js';

describe('usage', () => {
  it('puts the reason first and the channel’s projects last', () => {
    const { text } = usage('reply', 'I could not tell who ran this command.', 'This channel uses project `proj_a`.');
    expect(text.startsWith('I could not tell who ran this command.\n\n*Start a Mintlify agent job')).toBe(true);
    expect(text.endsWith('\n\nThis channel uses project `proj_a`.')).toBe(true);
  });

  it('for the conversational doors, lists every way to start a job, then the projects', () => {
    const { text } = conversationUsage('reply', 'This channel uses project `proj_a`.');
    expect(text).toContain('mention me with an instruction');
    expect(text).toContain('*More actions → Ask the Mintlify agent*');
    expect(text).toContain(
      'reply there to give the agent follow-up instructions (in a discussion I joined, mention me)',
    );
    expect(text.endsWith('This channel uses project `proj_a`.')).toBe(true);
  });

  it('with AGENT_FOLLOW_UPS=mention says to mention me in the thread, never to reply', () => {
    expect(usage('mention').text).toContain('mention me in its thread to give the agent follow-up instructions');
    expect(conversationUsage('mention').text).toContain('mention me there to give the agent follow-up instructions');
    for (const { text } of [usage('mention'), conversationUsage('mention')]) expect(text).not.toMatch(/\breply\b/);
  });
});

describe('error replies', () => {
  it('echo the whole prompt, even a long one, as plain message text (no 3,000-character block limit)', () => {
    const prompt = Array.from({ length: 4_000 }, (_, i) => `w${i}`).join(' ');
    const m = errors.unavailable(prompt);
    expect(m.blocks).toBeUndefined();
    expect(m.text.replace(/\n>/g, '\n')).toContain(prompt);
    expect(m.text.length).toBeLessThan(40_000);
  });

  it('bound what the service said and echo the instruction whole after it', () => {
    // Failed before: a 45,000-character refusal left the instruction a negative budget, so it was cut to "…".
    const prompt = Array.from({ length: 4_000 }, (_, i) => `w${i}`).join(' ');
    const m = errors.invalid(prompt, `Bad <input> ${'x'.repeat(45_000)}`);
    expect(m.text.length).toBeLessThanOrEqual(40_000);
    expect(m.text).toMatch(/^:warning: Mintlify refused the instruction: Bad &lt;input&gt; x+…\n\n/);
    expect(m.text.indexOf('\n\nYour instruction')).toBeLessThan(600);
    expect(m.text.endsWith(`Your instruction, to copy and retry:\n>${prompt}`)).toBe(true);
  });

  it('cut the problem, never the instruction, when both do not fit in one message', () => {
    const prompt = 'a'.repeat(30_000);
    const m = errors.unknownProject('proj_x', `Projects: ${'`p`, '.repeat(5_000)}`, prompt);
    expect(m.text.length).toBeLessThanOrEqual(40_000);
    expect(m.text.startsWith(":warning: I don't serve a project `proj_x`")).toBe(true);
    expect(m.text.endsWith(`Your instruction, to copy and retry:\n>${prompt}`)).toBe(true);
  });

  it('says when the next slot opens, at a time Slack shows on each reader’s clock', () => {
    expect(errors.createLimit('proj_a', 'p', 90_000, Date.parse('2026-11-22T10:00:00Z')).text).toContain(
      'in 2 minutes (<!date^1795341690^{time}|10:01 UTC>)',
    );
  });
});

describe('errors.notAllowed', () => {
  it.each([undefined, '', '   '])('says only why when there is no instruction (%j)', (prompt) => {
    expect(errors.notAllowed(prompt).text).not.toContain('Your instruction');
  });

  it('echoes an instruction, so it can be run where it is allowed', () => {
    expect(errors.notAllowed('Fix <it>').text).toContain('Your instruction, to copy and retry:\n>Fix &lt;it&gt;');
  });
});

describe('errors.unknownProject', () => {
  it('asks for a project id after a bare --project', () => {
    expect(errors.unknownProject(undefined, 'Projects: `a`.', 'x').text).toContain('`--project` needs a project id');
  });
});
