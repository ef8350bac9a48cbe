import { describe, expect, it } from 'vitest';
import { pagePathOf } from '../../../src/insights/page-path.js';

describe('a feedback entry’s page, when the service names it by URL', () => {
  it('is the URL’s path under the project’s docs site, the site’s own path stripped', () => {
    const sites = { proj_1: 'https://example.com/docs' };
    expect(pagePathOf('https://example.com/docs/quickstart/', 'proj_1', sites)).toBe('/quickstart');
    expect(pagePathOf('http://example.com/docs/api/auth?tab=1#key', 'proj_1', sites)).toBe('/api/auth');
    expect(pagePathOf('https://example.com/docs', 'proj_1', sites)).toBe('/');
  });

  it('is the URL’s path when no site is set or the URL is on another host; a path stays as it is', () => {
    expect(pagePathOf('https://docs.example.com/quickstart', 'proj_1', {})).toBe('/quickstart');
    expect(pagePathOf('https://acme.mintlify.app/guides/sso', 'proj_1', { proj_1: 'https://docs.acme.com' })).toBe(
      '/guides/sso',
    );
    expect(pagePathOf('/quickstart', 'proj_1', {})).toBe('/quickstart');
    expect(pagePathOf('quickstart', 'proj_1', {})).toBe('quickstart');
    expect(pagePathOf('https://', 'proj_1', {})).toBe('https://');
  });
});
