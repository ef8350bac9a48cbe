import { describe, expect, it } from 'vitest';
import { installPages, replacedNotice } from '../../../../src/tenants/connect/messages.js';

const CHANGE = { change: 'changed', user: 'U2BOB', at: 0, project: 'proj_b', keyChanged: true } as const;

describe('who may manage the connection, as the messages say it', () => {
  it('a workspace’s: its admins and owners, and the first installer', () => {
    expect(replacedNotice('U2BOB', CHANGE).text).toContain('in this workspace');
    expect(replacedNotice('U2BOB', CHANGE).text).toContain('the workspace admins’ and owners’');
    expect(installPages.installed('Acme', 'https://slack.example/app')).toContain(
      'the person who installed the app first',
    );
  });

  it('an org-wide install’s: only the organisation’s admins and owners', () => {
    const notice = replacedNotice('U2BOB', CHANGE, true).text;
    expect(notice).toContain('in this organisation');
    expect(notice).toContain('the organisation’s admins’ and owners’');
    expect(notice).not.toContain('workspace');
    const page = installPages.installed('Acme Corp', 'https://slack.example/app', true);
    expect(page).toContain('The organisation’s admins and owners can do it');
    expect(page).not.toContain('installed the app first');
  });
});
