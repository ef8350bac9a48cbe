import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isTextLike, readFileContext } from '../../../src/agent/file-context.js';
import { useAgentUnit } from './support.js';

describe('isTextLike', () => {
  it.each([
    [{ id: 'F', name: 'a', mode: 'snippet' }, true],
    [{ id: 'F', name: 'a.md', filetype: 'markdown' }, true],
    [{ id: 'F', name: 'a.yaml', mimetype: 'application/x-yaml' }, true],
    [{ id: 'F', name: 'a.json', mimetype: 'application/json' }, true],
    [{ id: 'F', name: 'a.png', mimetype: 'image/png', filetype: 'png' }, false],
    [{ id: 'F', name: 'a.pdf', mimetype: 'application/pdf', filetype: 'pdf' }, false],
  ])('%j: %s', (file, text) => {
    expect(isTextLike(file)).toBe(text);
  });
});

describe('readFileContext', () => {
  const unit = useAgentUnit();

  it('fences a snippet with a fence longer than any backtick run in it', async () => {
    const { deps, slack } = unit();
    const shared = slack.people.sharesFile('U123ALICE', 'C123DOCS', { name: 'a.md', content: 'use ```js fences```' });
    const file = { id: shared.file.id, name: 'a.md', filetype: 'markdown', urlPrivate: shared.file.url_private };
    const context = await readFileContext(deps, [file]);
    expect(context?.text).toContain('````markdown\nuse ```js fences```\n````');
    expect(context?.note).toContain('files: 1 included');
  });

  it('never sends the bot token to a host other than Slack’s', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      res.end('secret text');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a.md`;
      const context = await readFileContext(unit().deps, [
        { id: 'F9', name: 'a.md', mode: 'snippet', urlPrivate: url },
      ]);
      expect(seen).toEqual([]);
      expect(context?.text).toContain('[file: a.md (no link): its text is not included');
    } finally {
      server.close();
    }
  });
});
