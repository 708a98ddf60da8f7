import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ApiVersion } from '../../src/core/http/versioning.ts';

/** The committed contract snapshots, next to this file. */
export const SNAPSHOT_FILES = {
  openapi: (version: ApiVersion) => fileURLToPath(new URL(`./openapi.v${version}.snapshot.json`, import.meta.url)),
  sdl: fileURLToPath(new URL('./schema.snapshot.graphql', import.meta.url)),
};

export function readOpenApiSnapshot(version: ApiVersion): Record<string, unknown> {
  return JSON.parse(readFileSync(SNAPSHOT_FILES.openapi(version), 'utf8')) as Record<string, unknown>;
}

export function readSdlSnapshot(): string {
  return readFileSync(SNAPSHOT_FILES.sdl, 'utf8');
}

export function writeOpenApiSnapshot(version: ApiVersion, document: unknown): void {
  writeFileSync(SNAPSHOT_FILES.openapi(version), `${JSON.stringify(document, null, 2)}\n`);
}

export function writeSdlSnapshot(sdl: string): void {
  writeFileSync(SNAPSHOT_FILES.sdl, sdl.endsWith('\n') ? sdl : `${sdl}\n`);
}
