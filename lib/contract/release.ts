// The contract documents as released: where they are kept, the check CI runs against them, and cutting a release.
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Surface } from '#platform/errors.ts';
import { surfaceDocs } from '#edge/openapi/surfaces.ts';
import { projectRoot } from '#lib/stack/project.ts';
import { type Compatibility, compareWithRelease, type ContractDocument } from './compatibility.ts';

/** The last released document of a surface, kept in the repository beside the generated one. */
export function releasedFile(surface: Surface): string {
  return join('openapi', 'released', basename(surfaceDocs[surface].file));
}

function read(file: string): ContractDocument {
  return JSON.parse(readFileSync(join(projectRoot, file), 'utf8')) as ContractDocument;
}

const surfaces = Object.keys(surfaceDocs) as Surface[];

/** Each surface's generated document against its release. */
export function checkAgainstReleases(): { surface: Surface; file: string; result: Compatibility }[] {
  return surfaces.map((surface) => ({
    surface,
    file: surfaceDocs[surface].file,
    result: compareWithRelease(read(releasedFile(surface)), read(surfaceDocs[surface].file)),
  }));
}

/** Keeps today's generated documents as the released ones: the last step of cutting a release (docs/versioning.md). */
export function keepAsReleased(): string[] {
  return surfaces.map((surface) => {
    const target = releasedFile(surface);
    mkdirSync(dirname(join(projectRoot, target)), { recursive: true });
    copyFileSync(join(projectRoot, surfaceDocs[surface].file), join(projectRoot, target));
    return target;
  });
}

/** `--release` keeps today's documents as released; otherwise checks them against the releases. Answers the exit code. */
export function runRelease(args: readonly string[]): number {
  if (args.includes('--release')) {
    for (const file of keepAsReleased()) console.log(`kept ${file}`);
    return 0;
  }
  let failed = false;
  for (const { file, result } of checkAgainstReleases()) {
    if (result.problems.length === 0) {
      const breaking = result.breaking.length > 0 ? `, ${result.breaking.length} breaking change(s) under a new major version` : '';
      console.log(`${file} ${result.version}: compatible with the released ${result.releasedVersion}${breaking}`);
      continue;
    }
    failed = true;
    console.error(`${file} ${result.version} against the released ${result.releasedVersion}:\n${result.problems.join('\n')}`);
  }
  return failed ? 1 : 0;
}
