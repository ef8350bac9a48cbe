import { describe, expect, it } from 'vitest';
import { lookUpPerson } from '../../../src/slack/people.js';
import { decodeWithNames, displayNames } from '../../../src/slack/user-names.js';
import { zoneOf } from '../../../src/visitors/doors/door-kit.js';
import { useAgentUnit } from '../agent/support.js';

describe('lookUpPerson: name and time zone from one cached users.info', () => {
  const unit = useAgentUnit();

  it('reads the name and the zone once, then serves both from the store', async () => {
    const { deps, slack } = unit();
    expect(await lookUpPerson(deps, 'U456BOB')).toEqual({ name: 'Bob Lee', tz: 'Pacific/Auckland', teamId: 'T1' });
    expect(await zoneOf(deps, 'U456BOB')).toBe('Pacific/Auckland');
    expect(await displayNames(deps, ['U456BOB'])).toEqual(new Map([['U456BOB', 'Bob Lee']]));
    expect(slack.callsTo('users.info')).toHaveLength(1);
  });

  it('decodes an instruction with the names of the people it mentions, asking Slack only when it mentions someone', async () => {
    const { deps, slack } = unit();
    expect(await decodeWithNames(deps, 'Fix the &lt;head&gt; on <https://docs.example.com|the docs>')).toBe(
      'Fix the <head> on the docs (https://docs.example.com)',
    );
    expect(slack.callsTo('users.info')).toHaveLength(0);
    expect(await decodeWithNames(deps, 'Ask <@U456BOB> about it')).toBe('Ask @Bob Lee about it');
    expect(slack.callsTo('users.info')).toHaveLength(1);
  });

  it('falls back to UTC when Slack cannot say', async () => {
    const { deps, slack } = unit();
    slack.fail('users.info', { error: 'missing_scope' }, 2);
    expect(await lookUpPerson(deps, 'U123ALICE')).toBeUndefined();
    expect(await zoneOf(deps, 'U123ALICE')).toBe('UTC');
  });
});
