import { Counter, type Registry } from 'prom-client';

const REFUSED = 'mintlify_slack_metrics_refused_total';

/** Records a measurement; never throws. */
export type Recorder<A extends unknown[]> = (...args: A) => void;

/**
 * Wraps the calls that record a measurement, so a metric that refuses a value (prom-client throws on NaN or on an
 * unknown label) never fails the work it measures: the refusal is counted by metric name instead.
 */
export function guardMetrics(
  registry: Registry,
): <A extends unknown[]>(metric: string, record: Recorder<A>) => Recorder<A> {
  const refused =
    (registry.getSingleMetric(REFUSED) as Counter<'metric'> | undefined) ??
    new Counter({
      name: REFUSED,
      help: 'Measurements a metric refused (a NaN, a bad label): the work measured went on',
      labelNames: ['metric'],
      registers: [registry],
    });
  return (metric, record) =>
    (...args) => {
      try {
        record(...args);
      } catch {
        refused.inc({ metric });
      }
    };
}
