import {
  apiKeyProblem,
  CHANNEL_ID,
  docsUrlProblem,
  hasCredentials,
  pairList,
  projectIdProblem,
} from '../../config/env-fields.js';
import type { MintlifyClient } from '../../mintlify/client.js';
import type { ServiceFailure } from '../../mintlify/failure.js';
import { fieldErrors } from './messages.js';
import { FIELDS, type Field, type Form } from './view.js';

/** What a workspace connects: its admin key, its project and, optionally, channels on other projects. */
export interface Candidate {
  apiKey: string;
  projectId: string;
  channelProjects: Record<string, string>;
  /** The project's docs site, when given. */
  docsUrl?: string;
}

export type FieldErrors = Partial<Record<Field, string>>;
export type Checked = { ok: true; value: Candidate } | { ok: false; errors: FieldErrors };

const Routes = pairList('channel id:project id', CHANNEL_ID, projectIdProblem);

/** The form as settings, or what is wrong with each field, before anything is asked of the service. */
export function validate(form: Form, currentKey: string | undefined): Checked {
  const errors: FieldErrors = {};
  const apiKey = form.api_key ?? currentKey;
  if (!apiKey) errors.api_key = fieldErrors.keyMissing;
  else if (apiKeyProblem(apiKey)) errors.api_key = fieldErrors.keyShape;
  const projectId = form.project ?? '';
  if (projectIdProblem(projectId)) errors.project = fieldErrors.projectShape;
  const routes = Routes.safeParse((form.routes ?? '').split('\n').join(','));
  if (!routes.success) errors.routes = fieldErrors.routes(routes.error.issues[0]?.message ?? 'entry 1: unreadable');
  const docsUrl = form.docs_url;
  if (docsUrl && docsUrlProblem(docsUrl)) {
    const secret = URL.canParse(docsUrl) && hasCredentials(new URL(docsUrl));
    errors.docs_url = secret ? fieldErrors.docsUrlCredentials : fieldErrors.docsUrl(docsUrl);
  }
  if (Object.keys(errors).length > 0 || !apiKey || !routes.success) return { ok: false, errors };
  return { ok: true, value: { apiKey, projectId, channelProjects: routes.data, ...(docsUrl && { docsUrl }) } };
}

/** A day of visitors, at most one row: proves the key serves the project, starts no job and spends no slot. */
function probeQuery(now: number) {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { dateFrom: day(now), dateTo: day(now + 86_400_000), limit: 1, offset: 0 };
}

/** Which field a failed probe of `project` is about, and what it says. */
function refusal(failure: ServiceFailure, project: string, field: Field): FieldErrors {
  switch (failure.code) {
    case 'unauthorized':
      // 401 is the key; 403 is a key without this project (README of the simulator: "Checking a key").
      return failure.status === 401
        ? { api_key: fieldErrors.keyRefused }
        : { [field]: fieldErrors.projectUnknown(project) };
    case 'not_found':
      return { [field]: fieldErrors.projectUnknown(project) };
    case 'refused':
      return { [field]: fieldErrors.projectRefused(project, failure.message) };
    default:
      return { api_key: fieldErrors.serviceDown };
  }
}

/**
 * Asks Mintlify, with the candidate key, about the project and each routed one (at once: the answer to Slack is
 * due within 3 s). A refused key is an error on the key field; an unknown project on the field that names it.
 */
export async function checkWithService(client: MintlifyClient, candidate: Candidate, now: number): Promise<Checked> {
  const projects: [string, Field][] = [
    [candidate.projectId, FIELDS.project],
    ...[...new Set(Object.values(candidate.channelProjects))]
      .filter((p) => p !== candidate.projectId)
      .map((p): [string, Field] => [p, FIELDS.routes]),
  ];
  const results = await Promise.all(
    projects.map(async ([project, field]) => {
      const result = await client.getVisitors(project, probeQuery(now));
      return result.ok ? {} : refusal(result.failure, project, field);
    }),
  );
  // The key's refusal (or the service's silence) first: it is what the person must fix before anything else.
  const errors = results.find((e) => e.api_key) ?? Object.assign({}, ...results.reverse());
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: candidate };
}
