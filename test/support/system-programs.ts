// Programs from the system that some tests need (the Debian packages .ci/run installs). Outside CI
// a test that lacks one skips and says why; under REQUIRE_PROGRAMS=1, which .ci/run sets after
// installing them, the same test fails instead.
import { execFileSync } from 'node:child_process'
import type { Test } from 'tap'

export const REQUIRE_PROGRAMS = process.env['REQUIRE_PROGRAMS'] === '1'

/** The absolute path of `program` on PATH, or undefined. */
export function findProgram(program: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v "$1"', 'sh', program], { encoding: 'utf8' }).trim() || undefined
  } catch {
    return undefined
  }
}

/**
 * A tap `skip` value for a test that runs `program` (from Debian's `debianPackage`): false when it
 * is installed. Under REQUIRE_PROGRAMS=1 a missing program fails the calling test right away.
 */
export function skipWithout(t: Test, program: string, debianPackage: string): string | false {
  if (findProgram(program) !== undefined) return false
  const reason = `${program} is not installed (Debian package ${debianPackage}; .ci/run installs it)`
  if (REQUIRE_PROGRAMS) {
    t.fail(`REQUIRE_PROGRAMS=1 but ${reason}`)
    return false
  }
  return reason
}
