import { describe, expect, it } from 'vitest';
import { notConnected, whoCanConnect } from '../../../../src/tenants/connect/messages.js';
import { connectionSection, connectModal, readForm } from '../../../../src/tenants/connect/view.js';
import type { Connection } from '../../../../src/tenants/connection.js';
import { publicSettings } from '../../../../src/tenants/settings.js';
import { buttonsIn } from '../../../fixtures/slack.js';

const KEY = 'mint_acme_0123456789abcd';
const settings = publicSettings({
  projectId: 'proj_a',
  channelProjects: { C0AAA: 'proj_b' },
  apiKey: KEY,
  changedBy: 'U567OWEN',
  changedAt: Date.parse('2026-11-20T10:00:00Z'),
});

const installed: Connection = {
  steward: { userId: 'U1ANA', as: 'installer' },
  changes: [{ change: 'installed', user: 'U1ANA', at: Date.parse('2026-11-19T10:00:00Z') }],
};
const connected: Connection = {
  steward: { userId: 'U567OWEN', as: 'connector' },
  settings,
  changes: [
    ...installed.changes,
    { change: 'connected', user: 'U567OWEN', at: settings.changedAt, project: 'proj_a' },
    { change: 'reinstalled', user: 'U2LEO', at: settings.changedAt },
  ],
};

describe('App Home’s Mintlify section', () => {
  const buttons = (blocks: unknown) => buttonsIn(blocks).map((b) => b.button.text.text);

  it('says a connection this deployment cannot open is unreadable, not "not connected", and offers to connect again', () => {
    const unreadable: Connection = { ...installed, unreadable: true };
    const manager = JSON.stringify(connectionSection(unreadable, true));
    expect(manager).toContain("can't read this workspace's Mintlify connection");
    expect(manager).not.toContain('not connected yet');
    expect(buttons(connectionSection(unreadable, true))).toEqual(['Connect Mintlify']);
    const other = JSON.stringify(connectionSection(unreadable, false));
    expect(other).toContain("can't read this workspace's Mintlify connection");
    expect(other).toContain('<@U1ANA> (who installed me) or a workspace admin or owner');
  });

  it('offers Connect Mintlify to who may connect, and names who can to the others', () => {
    expect(buttons(connectionSection(installed, true))).toEqual(['Connect Mintlify']);
    const other = connectionSection(installed, false);
    expect(buttons(other)).toEqual([]);
    expect(JSON.stringify(other)).toContain('<@U1ANA> (who installed me) or a workspace admin or owner');
    expect(JSON.stringify(connectionSection({ changes: [] }, false))).toContain(
      'not connected yet. A workspace admin or owner can',
    );
  });

  it('shows what is connected, the key only as its fingerprint and only to who may change it', () => {
    const admin = JSON.stringify(connectionSection(connected, true));
    expect(admin).toContain('Connected to project `proj_a` with key `mint_…abcd`');
    expect(admin).toContain('<#C0AAA> → `proj_b`');
    expect(admin).toContain('Last changed by <@U567OWEN> on 2026-11-20');
    expect(buttons(connectionSection(connected, true))).toEqual(['Change', 'Disconnect']);
    const member = JSON.stringify(connectionSection(connected, false));
    expect(member).toContain('Connected to project `proj_a`.');
    expect(member).not.toContain('mint_');
  });

  it('lists the latest changes to everyone, newest first: who, when, which project', () => {
    const member = JSON.stringify(connectionSection(connected, false));
    expect(member).toContain(
      [
        '*Recent changes*',
        '2026-11-20 · <@U2LEO> installed the app again',
        '2026-11-20 · <@U567OWEN> connected project `proj_a`',
        '2026-11-19 · <@U1ANA> installed the app',
      ].join('\\n'),
    );
  });

  it('names who may connect: the steward and admins, or for an org-wide install the organisation’s admins', () => {
    expect(whoCanConnect({ userId: 'U1ANA', as: 'connector' }, false)).toBe(
      '<@U1ANA> (who connected it) or a workspace admin or owner',
    );
    expect(whoCanConnect({ userId: 'U1ANA', as: 'installer' }, true)).toBe('an admin or owner of your organisation');
  });
});

describe('the connect modal', () => {
  it('asks for the key and the project (routes and docs site optional); when changing, fills all but the key', () => {
    const first = connectModal();
    expect(first.blocks.map((b) => [b.block_id, 'optional' in b && b.optional])).toEqual([
      ['api_key', false],
      ['project', false],
      ['routes', true],
      ['docs_url', true],
    ]);
    const change = JSON.stringify(connectModal({ ...settings, docsUrl: 'https://docs.acme.example' }));
    expect(change).toContain('"initial_value":"https://docs.acme.example"');
    expect(change).toContain('Leave empty to keep mint_…abcd');
    expect(change).toContain('"initial_value":"proj_a"');
    expect(change).toContain('"initial_value":"C0AAA:proj_b"');
    expect(change).not.toContain(KEY);
  });

  it('reads what was typed, trimmed, leaving out what was left empty', () => {
    const values = {
      api_key: { value: { value: ` ${KEY} ` } },
      project: { value: { value: 'proj_a' } },
      routes: { value: { value: null } },
    };
    expect(readForm(values)).toEqual({ api_key: KEY, project: 'proj_a' });
  });
});

describe('the answer before Mintlify is connected', () => {
  it('names who can connect it and echoes the text, escaped, to run again', () => {
    const { text } = notConnected(whoCanConnect(installed.steward, false), 'Fix the <Note> & @here callout');
    expect(text).toContain('<@U1ANA> (who installed me)');
    expect(text).toContain('>Fix the &lt;Note&gt; &amp; @\u200Bhere callout');
  });

  it('says only who can connect it when there is no text', () => {
    expect(notConnected('U1ANA', ' ').text).not.toContain('Your text');
  });
});
