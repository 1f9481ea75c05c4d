// Reading a bundle file back: a reader refuses a format it does not know, and a version newer than
// its own, naming the sandbox version that wrote it (docs/bundle.md).
import { readFile } from 'node:fs/promises'
import { BUNDLE_FORMAT, BUNDLE_VERSION, type Bundle } from '../control/bundle.js'

class BundleError extends Error {}

/** A command's refusal of its arguments or of its bundle: one line, and exit code 2. */
export function usage(problem: string): number {
  process.stderr.write(`animal-store-sandbox: ${problem} (--help says how)\n`)
  return 2
}

/** The bundle in `file`; undefined, said as usage, when it is none this sandbox reads. */
export async function openBundle(file: string): Promise<Bundle | undefined> {
  try {
    return await readBundle(file)
  } catch (error) {
    if (!(error instanceof BundleError)) throw error
    usage(error.message)
    return undefined
  }
}

async function readBundle(file: string): Promise<Bundle> {
  let value: Partial<Bundle>
  try {
    value = JSON.parse(await readFile(file, 'utf8')) as Partial<Bundle>
  } catch (error) {
    throw new BundleError(`${file} cannot be read as JSON: ${(error as Error).message}`)
  }
  if (value?.format !== BUNDLE_FORMAT)
    throw new BundleError(`${file} is not a bundle: its format must be ${JSON.stringify(BUNDLE_FORMAT)}`)
  if (value.version !== BUNDLE_VERSION)
    throw new BundleError(
      `${file} is a bundle of version ${JSON.stringify(value.version)}, written by sandbox ${value.sandbox?.version ?? 'unknown'}; this sandbox reads version ${BUNDLE_VERSION}: use a sandbox that reads it`,
    )
  const { start, journal, faults, clock } = value
  if (!Array.isArray(start?.pets) || !Array.isArray(journal?.entries) || !Array.isArray(faults) || clock === undefined)
    throw new BundleError(`${file} lacks part of a bundle: start.pets, journal.entries, faults and clock are needed`)
  return value as Bundle
}
