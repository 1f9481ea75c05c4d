// What a bundle says of the sandbox that made it, gathered once at start: its version, the hash
// of the API spec it serves, and the settings that shape its answers, as the variables that set them.
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import type { Config } from './config.js'
import type { BundleFacts } from './control/bundle.js'
import { PACKAGE_ROOT, SPEC_FILE } from './paths.js'
import { namesOf } from './settings.js'

/**
 * The settings an answer depends on besides the data, faults and clock a bundle holds: where the
 * clock starts, which operations are refused, and the bounds past which a create is a 507.
 */
const SHAPING = ['clock', 'minStability', 'maxPets', 'maxStoreBytes', 'maxTotalPets', 'maxTotalBytes'] as const

export const SANDBOX_VERSION = (
  JSON.parse(readFileSync(new URL('package.json', PACKAGE_ROOT), 'utf8')) as { version: string }
).version

export async function sandboxFacts(config: Config): Promise<BundleFacts> {
  const settings: Record<string, string> = {}
  for (const key of SHAPING) {
    const value: unknown = config[key]
    const env = namesOf(key).env
    if (value === undefined || env === undefined) continue
    settings[env] = value instanceof Date ? value.toISOString() : String(value)
  }
  const spec = await readFile(config.specFile ?? SPEC_FILE)
  return { version: SANDBOX_VERSION, specSha256: sha256(spec), settings }
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex')
}
