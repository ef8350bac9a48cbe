import type { DigestKind } from '../../visitors/index.js';

/** The insights digest: weekly, with the visitors digest's subscriptions, schedulers, posting and healing. */
export const INSIGHTS_DIGEST: DigestKind = {
  feature: 'insights',
  schedulerPrefix: 'insights-digest',
  scheduledTask: 'insights.scheduled_digest',
  eventType: 'mintlify_insights_digest',
  cadences: ['weekly'],
  command: '/insights',
  help:
    '*The insights digest* posts the three fixes readers need most each week, at your time of day, each with its ' +
    '*Draft a fix* button: `/insights digest weekly` (Mondays 09:00), `/insights digest weekly fri 16:30`. ' +
    '`/insights digest` shows the subscription, `/insights digest off` ends it.',
};
