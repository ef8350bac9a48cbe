import { describe, expect, it } from 'vitest';
import { parseSubmission, shortcutModal, shortcutPrompt } from '../../../src/agent/shortcut-modal.js';
import { blockKitProblems } from '../../../tools/slack-standin/block-kit.js';

const origin = { channel: 'C1', threadTs: '1.0', permalink: 'https://acme.slack.com/archives/C1/p10' };

describe('the shortcut modal', () => {
  it('offers a project picker, preset to the channel’s project, only when there is more than one project', () => {
    const one = shortcutModal({ origin, text: 'hi', projects: ['p1'], project: 'p1' });
    expect(JSON.stringify(one.blocks)).not.toContain('static_select');
    const many = shortcutModal({ origin, text: 'hi', projects: ['p1', 'p2'], project: 'p2' });
    const picker = many.blocks.find((b) => b.block_id === 'project');
    expect(picker).toMatchObject({
      element: { type: 'static_select', initial_option: { value: 'p2' }, options: [{ value: 'p1' }, { value: 'p2' }] },
    });
  });

  it('offers at most Slack’s 100 options, the channel’s project always among them', () => {
    const projects = Array.from({ length: 150 }, (_, i) => `p${i}`);
    const modal = shortcutModal({ origin, text: 'hi', projects, project: 'p140' });
    const picker = modal.blocks.find((b) => b.block_id === 'project') as { element: { options: { value: string }[] } };
    expect(picker.element.options).toHaveLength(100);
    expect(picker.element.options.map((o) => o.value)).toContain('p140');
  });

  it('escapes the quoted message and carries where it came from', () => {
    const modal = shortcutModal({ origin, text: 'a <b> & @channel', projects: ['p1'], project: 'p1' });
    expect(JSON.stringify(modal.blocks)).toContain('>a &lt;b&gt; &amp; @\u200Bchannel');
    expect(JSON.parse(modal.private_metadata ?? '')).toEqual(origin);
  });

  it.each(['&', '<'])('opens for a message of 1,000 %j, which escaping makes five or four times longer', (c) => {
    const modal = shortcutModal({ origin, text: `x${c.repeat(1_000)}x`, projects: ['p1'], project: 'p1' });
    expect(blockKitProblems(modal.blocks, 'view')).toEqual([]);
  });
});

describe('parseSubmission', () => {
  const values = (instruction: string | null, project?: string) => ({
    instruction: { value: { value: instruction } },
    ...(project && { project: { value: { selected_option: { value: project } } } }),
  });

  it('reads the instruction, the chosen project and the origin', () => {
    expect(parseSubmission(JSON.stringify(origin), values(' Fix it ', 'p2'))).toEqual({
      ok: true,
      origin,
      instruction: 'Fix it',
      project: 'p2',
    });
  });

  it.each([null, '', '  \n '])('asks for an instruction when it is %j', (instruction) => {
    expect(parseSubmission(JSON.stringify(origin), values(instruction))).toEqual({
      ok: false,
      errors: { instruction: 'Write what the agent should do.' },
    });
  });

  it('says so when the form lost its message', () => {
    const parsed = parseSubmission('not json', values('Fix it'));
    expect(parsed.ok).toBe(false);
  });

  it('sends the message’s link along with the instruction', () => {
    expect(shortcutPrompt('Fix it', origin)).toBe(
      'Fix it\n\nSlack message this request is about: https://acme.slack.com/archives/C1/p10',
    );
    expect(shortcutPrompt('Fix it', { channel: 'C1', threadTs: '1.0' })).toBe('Fix it');
  });
});
