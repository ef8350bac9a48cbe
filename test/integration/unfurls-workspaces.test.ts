import { beforeEach, describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';

// Many workspaces: each gives its docs site in App Home's Connect Mintlify form; links are unfurled with its own
// project, key and token, and not at all in a workspace that gave none.

const KEY_A = 'mint_acme_7e6d5c4b3a29AAAA';
const KEY_G = 'mint_globex_1a2b3c4d5e6fGGGG';
const DOCS = 'https://docs.example.com';

describe.each(storeKinds)('docs links in many workspaces ($label)', (store) => {
  const h = useHarness({
    store,
    simulator: () => ({ keys: { keys: { [KEY_A]: ['proj_a'], [KEY_G]: ['proj_g'] } } }),
  });
  const ws = new Workspaces(h);

  beforeEach(async () => {
    await h.boot({ env: oauthEnv(h) });
    ws.prepare();
  });

  it('unfurls a workspace’s docs links with the site it connected, and none where no site was given', async () => {
    await ws.install('T1', 'U123ALICE');
    await ws.install('T2', 'U2ANA');
    const refused = await ws.connect('T1', 'U123ALICE', { apiKey: KEY_A, project: 'proj_a', docsUrl: 'docs.example' });
    expect(JSON.stringify(refused)).toContain('is not the https address of a site');
    const form = { apiKey: KEY_A, project: 'proj_a', docsUrl: DOCS };
    expect(await ws.connect('T1', 'U123ALICE', form)).toBeUndefined();
    expect(await ws.connect('T2', 'U2ANA', { apiKey: KEY_G, project: 'proj_g' })).toBeUndefined();
    expect(JSON.stringify(await ws.openHome('T1', 'U123ALICE'))).toContain(`Links to <${DOCS}/>`);

    const globexAsked = () => h.sim.requests.filter((r) => r.path.includes('/proj_g/')).length;
    const probes = globexAsked(); // the connect form's check of the key
    const url = `${DOCS}/quickstart`;
    const globex = h.slack.people.says('U2ANA', 'C2DOCS', url);
    await h.deliver(globex.events);
    const acme = h.slack.people.says('U123ALICE', 'C123DOCS', url);
    await h.deliver(acme.events);
    const call = await eventually(() => h.slack.callsTo('chat.unfurl')[0], 5_000, 'chat.unfurl');
    expect(call.teamId).toBe('T1');
    const shared = () => h.slack.tenant('T1').linkShares.find((s) => s.messageTs === acme.ts);
    await eventually(() => Object.keys(shared()?.unfurls ?? {}).length > 0, 5_000, 'the unfurl Slack kept');
    expect(JSON.stringify(call.args.unfurls)).toContain('proj_a');
    expect(ws.keysUsedFor('proj_a').size).toBeGreaterThan(0);
    expect(globexAsked()).toBe(probes);
    // Globex's link_shared came first and was answered with nothing.
    expect(h.slack.callsTo('chat.unfurl')).toHaveLength(1);
  });
});
