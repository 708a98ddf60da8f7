import { HttpError } from 'react-admin';
import { session, waitForNewToken } from './session.ts';

/** The one error envelope of the API (DECISIONS §4). */
export interface ApiError {
  error?: { code?: string; message?: string; details?: { field?: string; message: string }[] };
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export const API = '/api/v2';

/**
 * Every call of the console to the API: same origin, bearer token, JSON. A 401 on a request that carried
 * a token waits for the password to be asked again and is sent once more. Any other error becomes
 * react-admin's HttpError, with a 422's details as `body.errors` (field -> message), which the forms
 * show on their fields.
 */
export async function api<T = unknown>(
  path: string,
  init: RequestInit & { raw?: boolean } = {},
): Promise<ApiResponse<T>> {
  const send = (token: string | null) => {
    const headers = new Headers(init.headers);
    if (!headers.has('accept')) headers.set('accept', 'application/json');
    if (token) headers.set('authorization', `Bearer ${token}`);
    if (typeof init.body === 'string' && !headers.has('content-type')) headers.set('content-type', 'application/json');
    // `no-cache`: product reads may be kept 60 s by a browser (DECISIONS §3); the console revalidates
    // each read (a 304 costs little), so a refetch after a change shows the change.
    return fetch(path.startsWith('/') ? path : `${API}/${path}`, { cache: 'no-cache', ...init, headers });
  };
  const token = session.token();
  let response = await send(token);
  if (response.status === 401 && token) response = await send(await waitForNewToken());
  if (init.raw && response.ok) return { status: response.status, headers: response.headers, body: response as T };
  const text = response.status === 204 || response.status === 304 ? '' : await response.text();
  let body: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
  if (!response.ok) throw toHttpError(response.status, body as ApiError);
  return { status: response.status, headers: response.headers, body: body as T };
}

export function toHttpError(status: number, body: ApiError): HttpError {
  const message = body?.error?.message ?? `HTTP ${status}`;
  const details = body?.error?.details ?? [];
  const errors: Record<string, string> = {};
  for (const detail of details) if (detail.field) errors[fieldOf(detail.field)] = detail.message;
  const fieldErrors = status === 422 && Object.keys(errors).length > 0;
  return new HttpError(message, status, {
    ...body,
    ...(fieldErrors ? { errors: { ...errors, root: { serverError: message } } } : {}),
  });
}

/** `body.price` or `price` as a form field's name. */
function fieldOf(field: string): string {
  return field.replace(/^(body|query)\./, '').replace(/^\//, '');
}
