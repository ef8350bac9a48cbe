import { describe, expect, it } from 'vitest';
import { docsPageOf } from '../../../src/unfurls/match.js';
import { docsPages } from '../../../src/unfurls/unfurl.js';

const SITES = {
  proj_a: 'https://docs.acme.example',
  proj_api: 'https://acme.example/api-docs/',
  proj_b: 'https://docs.acme.example/b',
};

describe('a link as a page of a connected project’s docs', () => {
  it.each<[string, { project: string; path: string } | undefined]>([
    ['https://docs.acme.example/quickstart', { project: 'proj_a', path: '/quickstart' }],
    ['https://docs.acme.example/', { project: 'proj_a', path: '/' }],
    ['https://docs.acme.example', { project: 'proj_a', path: '/' }],
    ['https://DOCS.acme.example/guides/webhooks/', { project: 'proj_a', path: '/guides/webhooks' }],
    ['http://docs.acme.example/quickstart?ref=slack#step-2', { project: 'proj_a', path: '/quickstart' }],
    ['https://docs.acme.example/b/setup', { project: 'proj_b', path: '/setup' }],
    ['https://docs.acme.example/b', { project: 'proj_b', path: '/' }],
    ['https://docs.acme.example/bravo', { project: 'proj_a', path: '/bravo' }],
    ['https://acme.example/api-docs/auth', { project: 'proj_api', path: '/auth' }],
    ['https://docs.acme.example/caf%C3%A9', { project: 'proj_a', path: '/café' }],
    ['https://acme.example/blog/post', undefined],
    ['https://docs.acme.example.evil.example/quickstart', undefined],
    ['https://docs.acme.example:8443/quickstart', undefined],
    ['ftp://docs.acme.example/quickstart', undefined],
    ['not a url', undefined],
  ])('%s', (url, expected) => {
    const page = docsPageOf(url, SITES);
    expect(page).toEqual(expected && { url, ...expected });
  });

  it('matches a site under a path with escapes (a space, an accent), written either way', () => {
    const sites = { proj_v2: 'https://acme.example/docs%20v2/', proj_fr: 'https://acme.example/documentation-é' };
    expect(docsPageOf('https://acme.example/docs%20v2/setup', sites)).toMatchObject({
      project: 'proj_v2',
      path: '/setup',
    });
    expect(docsPageOf('https://acme.example/documentation-%C3%A9/a', sites)).toMatchObject({
      project: 'proj_fr',
      path: '/a',
    });
  });

  it('matches nothing when no project has a docs site', () => {
    expect(docsPageOf('https://docs.acme.example/quickstart', {})).toBeUndefined();
  });

  it('keeps each docs link once, at most five, and drops the others', () => {
    const links = [
      'https://docs.acme.example/a',
      'https://elsewhere.example/x',
      'https://docs.acme.example/a',
      ...['g', 'c', 'd', 'e', 'f'].map((p) => `https://docs.acme.example/${p}`),
    ];
    expect(docsPages(links, SITES).map((p) => p.path)).toEqual(['/a', '/g', '/c', '/d', '/e']);
  });
});
