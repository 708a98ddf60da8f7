/**
 * The signed-in person's token and e-mail, kept in sessionStorage (gone with the tab; never a cookie,
 * so no request carries it unless the console puts it in `Authorization`).
 */
const TOKEN = 'content-admin.token';
const EMAIL = 'content-admin.email';

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN),
  email: (): string | null => sessionStorage.getItem(EMAIL),
  signIn(email: string, token: string): void {
    sessionStorage.setItem(EMAIL, email);
    sessionStorage.setItem(TOKEN, token);
  },
  signOut(): void {
    sessionStorage.removeItem(TOKEN);
  },
};

/** `POST /api/v2/auth/token`: a token for e-mail and password, or the server's message. */
export async function requestToken(email: string, password: string): Promise<string> {
  const response = await fetch('/api/v2/auth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const body = (await response.json().catch(() => ({}))) as {
    access_token?: string;
    error?: { message?: string };
  };
  if (!response.ok || !body.access_token) throw new Error(body.error?.message ?? `Sign-in failed (${response.status})`);
  return body.access_token;
}

type Waiter = (token: string) => void;
let waiting: Waiter[] = [];
const listeners = new Set<(asking: boolean) => void>();

/**
 * A 401 on a token that was good: the token expired. Every request that meets it waits here while the
 * console asks for the password again (ReauthDialog), then goes on with the new token; the screen,
 * its filters and any unsaved form stay as they were.
 */
export function waitForNewToken(): Promise<string> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) for (const listener of listeners) listener(true);
  });
}

export function onReauthNeeded(listener: (asking: boolean) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function reauthenticated(token: string): void {
  const email = session.email() ?? '';
  session.signIn(email, token);
  const resolved = waiting;
  waiting = [];
  for (const listener of listeners) listener(false);
  for (const resolve of resolved) resolve(token);
}
