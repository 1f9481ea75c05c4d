// The verification capability: what a test asks of the request journal through the control API.
// Its calls and the coverage report (journal-operations.ts); verify, the wait for the calls it
// expects, the stray calls and the end of a test (verification-operations.ts); and COVERAGE_FILE,
// the report of every namespace written as the sandbox stops.
import { rename, writeFile } from 'node:fs/promises'
import type { Capability } from '../capability.js'
import type { ApiSpec } from '../contract/types.js'
import { coverageMarkdown, coverageOf } from '../journal/coverage.js'
import type { Namespaces } from '../namespaces/namespaces.js'
import { journalHandlers } from './journal-operations.js'
import { verificationHandlers } from './verification-operations.js'

/** COVERAGE_FILE: where the report of every namespace goes once the last request is answered. */
export interface CoverageFile {
  readonly file: string
  readonly spec: ApiSpec
  readonly namespaces: Namespaces
}

export function verification(coverageFile: CoverageFile | undefined): Capability {
  return {
    name: 'verification',
    controlOperations: { ...journalHandlers, ...verificationHandlers },
    close: coverageFile && (() => writeCoverage(coverageFile)),
  }
}

/** Written aside and renamed, so that CI never reads half a report. */
async function writeCoverage({ file, spec, namespaces }: CoverageFile): Promise<void> {
  const report = coverageOf(spec, namespaces)
  const text = file.endsWith('.md') ? coverageMarkdown(report) : `${JSON.stringify(report, null, 2)}\n`
  await writeFile(`${file}.tmp`, text)
  await rename(`${file}.tmp`, file)
}
