// Every file name beside DATA_FILE (db.json):
//
//   db.json, db.json.journal           the default namespace's image and append log
//   db.ns.<name>.json (and .journal)   a namespace's
//   db.snapshot.<name>.json            a named snapshot
//   db.owners.json                     which API key made each namespace (NAMESPACES_PER_KEY)
//   .<any of these>.tmp                written, then renamed into place
//
// A file system may fold case (macOS, Windows, Docker Desktop's bind mounts), so a capital in a
// name is written as '+' and its small letter (`Team` → `+team`): two names never share a file.
import { readdir, rename } from 'node:fs/promises'
import { basename, dirname, extname, join } from 'node:path'
import { DataFileError } from './errors.js'
import type { FileSystem } from './file-system.js'

export type FileKind = 'ns' | 'snapshot'

/** The append log's file: `.journal`, as the first version named it. */
export const appendLogOf = (file: string): string => `${file}.journal`

/** `db.json` → `db.owners.json`: the namespaces' owners, by their keys' hashes. */
export function ownersFileOf(dataFile: string): string {
  const extension = extname(dataFile)
  return join(dirname(dataFile), `${basename(dataFile, extension)}.owners${extension || '.json'}`)
}

export const tempOf = (file: string): string => join(dirname(file), `.${basename(file)}.tmp`)

/** `Team` → `+team`: the part of a file name that stands for `name`. */
export function filePartOf(name: string): string {
  return name.replace(/[A-Z]/g, (capital) => `+${capital.toLowerCase()}`)
}

/** The name `part` stands for; undefined for a part no name gives. */
export function nameOfFilePart(part: string): string | undefined {
  if (!/^(?:\+[a-z]|[a-z0-9_.-])+$/.test(part)) return undefined
  return part.replace(/\+([a-z])/g, (_, letter: string) => letter.toUpperCase())
}

/** `db.json` → `db.ns.+team.json`. */
export function fileBeside(dataFile: string, kind: FileKind, name: string): string {
  const { prefix, extension } = partsOf(dataFile, kind)
  return join(dirname(dataFile), `${prefix}${filePartOf(name)}${extension}`)
}

export interface FilesFound {
  readonly namespaces: Set<string>
  readonly snapshots: Set<string>
  /** Temporary files a kill or a failure left. */
  readonly temporary: string[]
  /** Files named before capitals were escaped, and their names now. */
  readonly renames: Array<{ readonly from: string; readonly to: string }>
}

/** One look at the directory: the names with files, and what a start tidies (tidyFiles). */
export async function scanFiles(dataFile: string): Promise<FilesFound> {
  const found: FilesFound = { namespaces: new Set(), snapshots: new Set(), temporary: [], renames: [] }
  const entries = await readdir(dirname(dataFile)).catch((): string[] => [])
  for (const entry of entries) {
    const temporary = /^\.(.+)\.tmp$/.exec(entry)?.[1]
    if (temporary !== undefined) {
      const ours = [basename(dataFile), basename(ownersFileOf(dataFile))].includes(temporary)
      if (ours || fileOf(dataFile, temporary) !== undefined) found.temporary.push(entry)
      continue
    }
    const file = fileOf(dataFile, entry)
    if (file === undefined) continue
    const name = nameOfFilePart(file.part)
    if (name === undefined && file.part.includes('+')) continue // not a file of ours
    if (name === undefined)
      found.renames.push({ from: entry, to: `${file.prefix}${filePartOf(file.part)}${file.ending}` })
    found[file.kind === 'ns' ? 'namespaces' : 'snapshots'].add(name ?? file.part)
  }
  const taken = found.renames.find(({ to }) => entries.includes(to))
  if (taken !== undefined)
    throw new DataFileError(
      join(dirname(dataFile), taken.from),
      `is a file named as before capitals were escaped, and ${taken.to} is its name now: keep one of them`,
    )
  return found
}

/**
 * For the holder of the lock (another writer's temporary file may be on its way to a rename):
 * renames the files named before, and removes the temporary files where the disk lets them go.
 * Resolves with those removed.
 */
export async function tidyFiles(dataFile: string, found: FilesFound, fs: FileSystem): Promise<string[]> {
  const directory = dirname(dataFile)
  for (const { from, to } of found.renames) await rename(join(directory, from), join(directory, to))
  if (found.renames.length > 0) await fs.syncDirectory(directory)
  const removed = await Promise.all(
    found.temporary.map((entry) =>
      fs.remove(join(directory, entry)).then(
        () => entry,
        () => undefined,
      ),
    ),
  )
  return removed.filter((entry) => entry !== undefined)
}

/** The kind and name part of a file of a namespace (image or append log) or of a snapshot. */
function fileOf(dataFile: string, entry: string) {
  for (const kind of ['ns', 'snapshot'] as const) {
    const { prefix, extension } = partsOf(dataFile, kind)
    const endings = kind === 'ns' ? [appendLogOf(extension), extension] : [extension]
    const ending = endings.find((end) => entry.endsWith(end) && entry.length > prefix.length + end.length)
    if (!entry.startsWith(prefix) || ending === undefined) continue
    const part = entry.slice(prefix.length, -ending.length)
    if (/^[A-Za-z0-9_.+-]+$/.test(part)) return { kind, prefix, part, ending }
  }
  return undefined
}

function partsOf(dataFile: string, kind: FileKind): { prefix: string; extension: string } {
  const extension = extname(dataFile)
  return { prefix: `${basename(dataFile, extension)}.${kind}.`, extension: extension || '.json' }
}
