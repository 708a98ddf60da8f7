import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';
import type { ContractChange } from './openapi-diff.ts';

/** SDL changes by GraphQL Inspector; its BREAKING criticality is what fails the contract check. */
export async function diffSdl(oldSdl: string, newSdl: string): Promise<ContractChange[]> {
  const changes = await diff(buildSchema(oldSdl), buildSchema(newSdl));
  return changes.map((change) => ({
    breaking: change.criticality.level === CriticalityLevel.Breaking,
    where: change.path ?? change.type,
    message: change.message,
  }));
}
