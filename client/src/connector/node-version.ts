// Whether this Node.js is new enough for the package: the packaged command's first check, before it loads anything else.

/** A version as `major.minor.patch` numbers, from `v24.1.0` or `24`. */
function numbers(version: string): [number, number, number] | undefined {
  const match = /(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(version);
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

/**
 * The line that refuses this Node.js, or undefined when it meets the package's `engines.node` (a `>=` bound, the only
 * kind the package states). An engines field it cannot read refuses nothing.
 */
export function nodeRefusal(running: string, engines: string | undefined): string | undefined {
  const bound = engines === undefined ? undefined : /^\s*>=\s*v?([\d.]+)\s*$/.exec(engines)?.[1];
  const needed = bound === undefined ? undefined : numbers(bound);
  const have = numbers(running);
  if (!needed || !have) return undefined;
  for (let part = 0; part < 3; part++) {
    if ((have[part] as number) > (needed[part] as number)) return undefined;
    if ((have[part] as number) < (needed[part] as number)) {
      return `pricing-connector needs Node.js ${bound} or newer (the package's engines: ${engines?.trim()}); this is Node.js ${running}. Install a newer Node.js (for example \`nvm install ${needed[0]}\`) and run it again.`;
    }
  }
  return undefined;
}
