import type { Config } from '../config/config.ts';

// Placeholder replaced by the seed generator work in progress this session.
export async function runSeedCommand(_config: Config, _args: string[]): Promise<void> {
  throw new Error('seed is not implemented yet');
}
