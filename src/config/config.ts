import { randomBytes } from 'node:crypto';
import type { TSchema } from 'typebox';
import { bodyAjv } from '../core/validation/ajv.ts';
import { EnvSchema, type Env } from './env-schema.ts';

export interface Config extends Omit<Env, 'DEMO_DATA'> {
  /** Resolved: DEMO_DATA if set, else true except in production (DECISIONS §1). */
  DEMO_DATA: boolean;
  /** Always set: taken from JWT_SECRET or generated for this process (development only). */
  jwtSecret: string;
  /** JWT_SECRET is unset: the service chose `jwtSecret` (per process, or kept in `jwtSecretFile` or the database). */
  jwtSecretGenerated: boolean;
  /** Where a development secret is kept beside the SQLite database (development-secret.ts); unset: per process. */
  jwtSecretFile?: string | undefined;
  /** The development secret is kept in the PostgreSQL database (development-secret.ts, `withDatabaseSecret`). */
  jwtSecretInDatabase?: boolean | undefined;
}

export class ConfigError extends Error {}

const NAMES = Object.keys(EnvSchema.properties) as (keyof Env)[];

/**
 * The schema's validator, with its defaults filled in (ajv's `useDefaults`). Ajv, which validates every
 * request already, rather than TypeBox's `Value`, whose many modules were loaded for this alone, and
 * held megabytes of heap.
 */
const validateEnv = bodyAjv.compile<Env>(EnvSchema);

/**
 * A variable's text as its type reads it: numbers in decimal or exponent notation, booleans as
 * true/false (any case) or 1/0, both around spaces. Anything else stays text, for the validator to name.
 * The number pattern has one way to match each digit, so a long value is refused at once (`\d+\.?\d*`
 * tried every split of a run of digits: 2 s for 30,000 of them).
 */
function fromText(schema: TSchema, text: string): unknown {
  const { type } = schema as { type?: string };
  const trimmed = text.trim();
  if ((type === 'integer' || type === 'number') && /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i.test(trimmed)) {
    return Number(trimmed);
  }
  if (type === 'boolean') {
    const word = trimmed.toLowerCase();
    if (word === 'true' || word === '1') return true;
    if (word === 'false' || word === '0') return false;
  }
  return text;
}

/** Reads and validates the environment; throws ConfigError with one line naming the variable. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const env: Record<string, unknown> = {};
  for (const name of NAMES) {
    const value = source[name];
    if (value !== undefined && value !== '') env[name] = fromText(EnvSchema.properties[name], value);
  }
  const first = validateEnv(env) ? undefined : validateEnv.errors?.[0];
  if (first) {
    const name = first.instancePath.replace(/^\//, '') || missingName(first.params);
    const allowed = (first.params as { allowedValues?: unknown[] }).allowedValues;
    const message = allowed ? `must be one of ${allowed.join(', ')}` : first.message;
    throw new ConfigError(`Invalid configuration: ${name} ${message}${shownValue(name, source[name])}`);
  }
  const valid = env as Env;
  if (valid.NODE_ENV === 'production' && !valid.JWT_SECRET && !valid.JWT_JWKS_URL && !valid.JWT_PUBLIC_KEY) {
    throw new ConfigError('Invalid configuration: JWT_SECRET or JWT_JWKS_URL must be set when NODE_ENV=production');
  }
  if (valid.METRICS_PORT !== undefined && valid.METRICS_PORT !== 0 && valid.METRICS_PORT === valid.PORT) {
    throw new ConfigError('Invalid configuration: METRICS_PORT must differ from PORT');
  }
  if (valid.HEADERS_TIMEOUT_MS >= valid.REQUEST_TIMEOUT_MS) {
    throw new ConfigError('Invalid configuration: HEADERS_TIMEOUT_MS must be less than REQUEST_TIMEOUT_MS');
  }
  return {
    ...valid,
    DEMO_DATA: valid.DEMO_DATA ?? valid.NODE_ENV !== 'production',
    jwtSecret: valid.JWT_SECRET ?? randomBytes(32).toString('base64url'),
    jwtSecretGenerated: !valid.JWT_SECRET,
  };
}

/** Secrets are never echoed; a URL's password is masked (a typo elsewhere in it stays visible). */
const SECRET_NAMES = new Set(['JWT_SECRET', 'ADMIN_PASSWORD']);

function shownValue(name: string, value: string | undefined): string {
  if (SECRET_NAMES.has(name)) return ' (the value is not shown)';
  const masked = value?.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
  return ` (got ${JSON.stringify(masked)})`;
}

function missingName(params: unknown): string {
  return (params as { missingProperty?: string }).missingProperty ?? 'environment';
}
