import { registerHooks } from 'node:module';

/**
 * Preloaded into a server process (`NODE_OPTIONS=--import <this file>`): prints `module-loaded <url>` on
 * stderr for each module whose resolved URL matches MODULE_LOADS_MATCHING (a regular expression), when
 * it is first resolved, by `import` or `require` alike (Node's synchronous module hooks see both).
 */
const matching = new RegExp(process.env.MODULE_LOADS_MATCHING ?? '$^');
const seen = new Set<string>();

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (matching.test(resolved.url) && !seen.has(resolved.url)) {
      seen.add(resolved.url);
      process.stderr.write(`module-loaded ${resolved.url} from ${context.parentURL ?? '(the entry)'}\n`);
    }
    return resolved;
  },
});
