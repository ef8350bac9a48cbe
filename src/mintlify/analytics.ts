import type { Options } from 'ky';
import type { z } from 'zod';
import {
  type ConversationsQuery,
  ConversationsQuerySchema,
  type ConversationsResponse,
  ConversationsResponseSchema,
  type FeedbackByPageQuery,
  FeedbackByPageQuerySchema,
  type FeedbackByPageResponse,
  FeedbackByPageResponseSchema,
  type FeedbackQuery,
  FeedbackQuerySchema,
  type FeedbackResponse,
  FeedbackResponseSchema,
  type SearchesQuery,
  SearchesQuerySchema,
  type SearchesResponse,
  SearchesResponseSchema,
  ThreadIdSchema,
  type ThreadResponse,
  ThreadResponseSchema,
} from './analytics-schemas.js';
import type { ServiceResult } from './failure.js';

/** What readers say (Analytics Export API v1): feedback, searches and the assistant's conversations. */
export interface AnalyticsCalls {
  getFeedback(project: string, query: FeedbackQuery): Promise<ServiceResult<FeedbackResponse>>;
  getFeedbackByPage(project: string, query: FeedbackByPageQuery): Promise<ServiceResult<FeedbackByPageResponse>>;
  getSearches(project: string, query: SearchesQuery): Promise<ServiceResult<SearchesResponse>>;
  getConversations(project: string, query: ConversationsQuery): Promise<ServiceResult<ConversationsResponse>>;
  getThread(project: string, threadId: string): Promise<ServiceResult<ThreadResponse>>;
}

/** One GET of the client: its key in the header, its answer as a result (client.ts). */
export type Get = <S extends z.ZodType>(
  operation: string,
  project: string,
  schema: S,
  path: string,
  options: Options,
) => Promise<ServiceResult<z.output<S>>>;

/** Input checked before any request (`refused` when the client would not send it). */
export type Check = <S extends z.ZodType>(
  op: { operation: string; project: string },
  schema: S,
  input: unknown,
) => ServiceResult<z.output<S>>;

/** Query parameters as the service reads them: unset ones left out, `status` comma-separated. */
function params(query: Record<string, unknown>): Record<string, string | number> {
  return Object.fromEntries(
    Object.entries(query).flatMap(([key, value]) => {
      if (value === undefined) return [];
      return [[key, Array.isArray(value) ? value.join(',') : (value as string | number)]];
    }),
  );
}

export function analyticsCalls(get: Get, check: Check): AnalyticsCalls {
  const list =
    <Q extends z.ZodType, R extends z.ZodType>(operation: string, querySchema: Q, schema: R, path: string) =>
    async (project: string, query: z.input<Q>): Promise<ServiceResult<z.output<R>>> => {
      const q = check({ operation, project }, querySchema, query);
      if (!q.ok) return q;
      const searchParams = params(q.value as Record<string, unknown>);
      return get(operation, project, schema, `v1/analytics/{project}/${path}`, { method: 'get', searchParams });
    };
  return {
    getFeedback: list('get feedback', FeedbackQuerySchema, FeedbackResponseSchema, 'feedback'),
    getFeedbackByPage: list(
      'get feedback by page',
      FeedbackByPageQuerySchema,
      FeedbackByPageResponseSchema,
      'feedback/by-page',
    ),
    getSearches: list('get searches', SearchesQuerySchema, SearchesResponseSchema, 'searches'),
    getConversations: list('get conversations', ConversationsQuerySchema, ConversationsResponseSchema, 'assistant'),
    async getThread(project, threadId) {
      const op = { operation: 'get thread', project };
      const id = check(op, ThreadIdSchema, threadId);
      if (!id.ok) return id;
      const path = `v1/analytics/{project}/assistant/threads/${encodeURIComponent(id.value)}`;
      return get(op.operation, project, ThreadResponseSchema, path, { method: 'get' });
    },
  };
}
