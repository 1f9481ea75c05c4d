// The files of a namespace or a snapshot sit beside the data file, its name part of theirs:
//
//   db.ns.<name>.json (and its .journal)   db.snapshot.<name>.json
//
// Names are ASCII letters, digits, '_', '.' and '-': NFC and NFKC leave them as they are, and none
// is a character Windows forbids in a file name. But a file system may fold case (macOS, Windows,
// Docker Desktop's bind mounts), where `Team` and `team` would share one file. So a capital is
// written as '+' and its small letter (`Team` → `+team`): every part is lower case, '+' is in no
// name, and two names give two files on any file system. A name without capitals is its own part.
//
// Files written before (`db.ns.Team.json`) are renamed to their new names at start.
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync } from 'node:fs'
import { basename, dirname, extname, join } from 'node:path'
import { DataFileError } from './durable-io.js'

/** `Team` → `+team`: the part of a file name that stands for `name`. */
export function filePartOf(name: string): string {
  return name.replace(/[A-Z]/g, (capital) => `+${capital.toLowerCase()}`)
}

/** The name `part` stands for; undefined for a part that no name gives. */
export function nameOfFilePart(part: string): string | undefined {
  if (!/^(?:\+[a-z]|[a-z0-9_.-])+$/.test(part)) return undefined
  return part.replace(/\+([a-z])/g, (_, letter: string) => letter.toUpperCase())
}

/** The file of `kind` ('ns', 'snapshot') for `name` beside `dataFile`: `db.json` → `db.ns.+team.json`. */
export function fileBeside(dataFile: string, kind: string, name: string): string {
  const { directory, prefix, extension } = partsOf(dataFile, kind)
  return join(directory, `${prefix}${filePartOf(name)}${extension}`)
}

/**
 * The names whose files of `kind` are beside `dataFile`: the file itself, or one of it followed by
 * one of `suffixes` (a journal). A file of a name with capitals written before they were escaped
 * is renamed first; a start that finds both it and its new name stops, naming them.
 */
export function namesBeside(dataFile: string, kind: string, suffixes: readonly string[] = []): Set<string> {
  const { directory, prefix, extension } = partsOf(dataFile, kind)
  const names = new Set<string>()
  let entries: string[]
  try {
    entries = readdirSync(directory)
  } catch {
    return names // no directory yet: no file
  }
  const endings = [...suffixes.map((suffix) => extension + suffix), extension].sort((a, b) => b.length - a.length)
  let renamed = false
  for (const entry of entries) {
    if (!entry.startsWith(prefix)) continue
    const ending = endings.find((end) => entry.endsWith(end) && entry.length > prefix.length + end.length)
    if (ending === undefined) continue
    const part = entry.slice(prefix.length, -ending.length)
    const name = nameOfFilePart(part)
    if (name !== undefined) {
      names.add(name)
      continue
    }
    if (!/^[A-Za-z0-9_.-]+$/.test(part)) continue // not a file of ours
    const now = `${prefix}${filePartOf(part)}${ending}`
    if (existsSync(join(directory, now)))
      throw new DataFileError(
        join(directory, entry),
        `is the file of ${JSON.stringify(part)} as it was named before, and ${now} is its file now: keep one of them`,
      )
    renameSync(join(directory, entry), join(directory, now))
    renamed = true
    names.add(part)
  }
  if (renamed) syncDirectory(directory)
  return names
}

function partsOf(dataFile: string, kind: string): { directory: string; prefix: string; extension: string } {
  const extension = extname(dataFile)
  return {
    directory: dirname(dataFile),
    prefix: `${basename(dataFile, extension)}.${kind}.`,
    extension: extension || '.json',
  }
}

function syncDirectory(directory: string): void {
  const fd = openSync(directory, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
