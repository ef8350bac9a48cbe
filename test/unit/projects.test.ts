import { describe, expect, it } from 'vitest';
import { takeProjectOption } from '../../src/config/project-option.js';
import { createProjects, describeProjects } from '../../src/config/projects.js';

const projects = createProjects({
  mintlify: {
    projectId: 'proj_a',
    apiKey: 'mint_default',
    apiUrl: 'http://127.0.0.1:1',
    channelProjects: { C0BBB: 'proj_b', C0BB2: 'proj_b', C0CCC: 'proj_c' },
    projectKeys: { proj_b: 'mint_b', proj_d: 'mint_d' },
    docsUrls: {},
  },
});

describe('projects', () => {
  it('routes listed channels to their project and everything else (DMs too) to the default', () => {
    expect(projects.forChannel('C0BBB')).toBe('proj_b');
    expect(projects.forChannel('C0CCC')).toBe('proj_c');
    expect(projects.forChannel('C0OTHER')).toBe('proj_a');
    expect(projects.forChannel('D0DM')).toBe('proj_a');
  });

  it('knows the default, every routed and every keyed project, each once, default first', () => {
    expect(projects.all).toEqual(['proj_a', 'proj_b', 'proj_c', 'proj_d']);
    expect(projects.knows('proj_d')).toBe(true);
    expect(projects.knows('proj_x')).toBe(false);
  });

  it('gives a project its own key, and the default key to projects without one', () => {
    expect(projects.keyFor('proj_b')).toBe('mint_b');
    expect(projects.keyFor('proj_c')).toBe('mint_default');
    expect(projects.keyFor('proj_a')).toBe('mint_default');
  });

  it('gives no key for a project it does not serve (one taken out of the configuration): not the default key', () => {
    expect(projects.keyFor('proj_x')).toBe('');
  });

  it('names the projects served before and no longer, each once, leaving out those served again', () => {
    const config = {
      mintlify: { projectId: 'proj_a', apiKey: 'k', apiUrl: '', channelProjects: {}, projectKeys: {}, docsUrls: {} },
    };
    expect(createProjects(config, ['proj_x', 'proj_a', 'proj_x', 'proj_y']).former).toEqual(['proj_x', 'proj_y']);
  });

  it('describes which project a channel uses and how to pick another', () => {
    expect(describeProjects(projects, 'C0BBB', '/agent')).toBe(
      'This channel uses project `proj_b`. Projects I know: `proj_a` (default), `proj_b`, `proj_c`, `proj_d`. Pick another with `/agent --project &lt;id&gt; &lt;instruction&gt;`.',
    );
  });
});

describe('takeProjectOption', () => {
  it.each([
    ['--project proj_c Fix the links', { project: 'proj_c', rest: 'Fix the links' }],
    ['  --project=proj_c   30d', { project: 'proj_c', rest: '30d' }],
    ['--project proj_c\nline one\nline two', { project: 'proj_c', rest: 'line one\nline two' }],
    ['Document the --project flag', { rest: 'Document the --project flag' }],
    ['--projects are great', { rest: '--projects are great' }],
    ['--project', { missing: true }],
    ['--project=', { missing: true }],
  ])('%j', (text, expected) => {
    expect(takeProjectOption(text)).toEqual(expected);
  });
});
