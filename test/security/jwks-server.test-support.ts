import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export const IDP_ISSUER = 'https://idp.test.example/';
export const IDP_AUDIENCE = 'content-service-api';

export interface IdpKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

export async function generateIdpKey(kid: string, alg = 'RS256'): Promise<IdpKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicKey, jwk };
}

/** Signs a token as the identity provider would; `claims` override the valid defaults (undefined removes one). */
export async function signIdpToken(
  key: IdpKey,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = { iss: IDP_ISSUER, aud: IDP_AUDIENCE, iat: now, exp: now + 300, ...claims };
  for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
  return new SignJWT(payload as JWTPayload)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header })
    .sign(key.privateKey);
}

/**
 * A JWKS endpoint on 127.0.0.1, as an identity provider serves it. `keys` can be changed (rotation),
 * `mode` makes it answer normally, hang (slow) or fail; `fetches` counts requests.
 */
export interface JwksServer {
  url: string;
  keys: IdpKey[];
  mode: 'ok' | 'slow' | 'error';
  fetches: number;
  close(): Promise<void>;
}

export async function startJwksServer(keys: IdpKey[]): Promise<JwksServer> {
  const hanging: ServerResponse[] = [];
  const state: JwksServer = { url: '', keys, mode: 'ok', fetches: 0, close: async () => {} };
  const server: Server = createServer((_request, response) => {
    state.fetches += 1;
    if (state.mode === 'slow') {
      hanging.push(response);
      return;
    }
    if (state.mode === 'error') {
      response.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ keys: state.keys.map((k) => k.jwk) }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  state.close = async () => {
    for (const response of hanging) response.destroy();
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  return state;
}
