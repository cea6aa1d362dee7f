// What the web client (src/web) knows of the API, as types derived from the
// generated api-types.d.ts (openapi-typescript, from openapi/openapi.json).
// The client's JSDoc refers to this module as 'sannin-api' (tsconfig paths);
// nothing here exists at run time.

import type { components, operations, paths } from './api-types';

export type { components, operations, paths };
/** The document's named schemas: `Schemas['GameView']`. */
export type Schemas = components['schemas'];

type Prefix = '/api/v1';
/** A path of the API as the client writes it: without `/api/v1`, with `{id}` placeholders. */
export type ApiPath = { [K in keyof paths]: K extends `${Prefix}${infer R}` ? R : never }[keyof paths];
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

type Item<P extends ApiPath> = paths[`${Prefix}${P}` & keyof paths];
/** The operation for a path and a method (undefined when there is none). */
export type Op<P extends ApiPath, M extends Method> = Item<P>[Lowercase<M> & keyof Item<P>];
/** The methods a path offers. */
export type MethodOf<P extends ApiPath> = {
  [M in Method]: Op<P, M> extends undefined ? never : M;
}[Method];

type Params<O, Where extends 'path' | 'query'> = O extends { parameters: { [W in Where]?: infer X } }
  ? [X] extends [never | undefined] ? never : X
  : never;
/** The JSON body an operation takes (never when it takes none). */
export type RequestBody<P extends ApiPath, M extends Method> = Op<P, M> extends { requestBody?: infer R }
  ? [NonNullable<R>] extends [never] ? never
    : NonNullable<R> extends { content: { 'application/json': infer B } } ? B : never
  : never;
type Ok = 200 | 201 | 202 | 204;
type ContentOf<R> = R extends { content: infer C } ? C[keyof C] : null;
/** What a successful answer carries: the JSON (or text) of its 2xx responses, null for 204. */
export type ResponseBody<P extends ApiPath, M extends Method> = Op<P, M> extends { responses: infer R }
  ? { [S in keyof R & Ok]: ContentOf<R[S]> }[keyof R & Ok]
  : never;

/** What the client may send as an operation's body. */
export type SendBody<P extends ApiPath, M extends Method> = RequestBody<P, M>;

type WithPath<T> = [T] extends [never] ? { params?: never } : { params: T };
type WithQuery<T> = [T] extends [never] ? { query?: never } : { query?: T };
type WithBody<T> = [T] extends [never] ? { body?: never } : { body: T };

/** The options of `api()`: the path's parameters, the query, the body, and how to send it. */
export type Options<P extends ApiPath, M extends Method> =
  WithPath<Params<Op<P, M>, 'path'>>
  & WithQuery<Params<Op<P, M>, 'query'>>
  & WithBody<SendBody<P, M>>
  & {
    /** Send no bearer token. */
    anonymous?: boolean;
    /** Ask for 304 when the answer still has this ETag (`apiFull`). */
    etag?: string | null;
    accept?: string;
    signal?: AbortSignal;
    /** Safe to send twice (retried once after a 503). */
    idempotent?: boolean;
  };

/** The session the client keeps in localStorage. */
export interface Session {
  access: string;
  refresh: string;
  expiresAt: number;
  username: string;
}

/** `api()`: the answer of an operation, typed by the document. */
export type Api = <P extends ApiPath, M extends MethodOf<P>>(method: M, path: P, opts?: Options<P, M>) => Promise<ResponseBody<P, M>>;
/** `apiFull()`: the same with the answer's ETag and status (body null for 304). */
export type ApiFull = <P extends ApiPath, M extends MethodOf<P>>(method: M, path: P, opts?: Options<P, M>) =>
  Promise<{ body: ResponseBody<P, M> | null; etag: string | null; status: number }>;
