// Preloaded into a sandbox process (node --import) to make the directory CASE_FOLDING_DIR behave as
// a file system that folds case, as macOS, Windows and Docker Desktop's bind mounts do: within it,
// `db.ns.Team.json` and `db.ns.team.json` are one file. Linux mounts such a file system only with
// root and a kernel built for it, so node's file functions fold the names below that directory to
// lower case instead, before the system sees them. Plain JavaScript, so that it needs no loader.
import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { resolve, sep } from 'node:path'

const root = resolve(process.env.CASE_FOLDING_DIR ?? '')
if (!process.env.CASE_FOLDING_DIR) throw new Error('CASE_FOLDING_DIR must name the directory to fold')

/** A path below the folding directory, its part below it in lower case; any other argument as it is. */
function fold(path) {
  if (typeof path !== 'string') return path
  const full = resolve(path)
  return full.startsWith(root + sep) ? root + full.slice(root.length).toLowerCase() : path
}

const ONE_PATH = ['open', 'readFile', 'writeFile', 'appendFile', 'unlink', 'mkdir', 'readdir', 'opendir'].concat([
  'stat',
  'lstat',
  'statfs',
  'rm',
  'rmdir',
  'access',
  'truncate',
  'utimes',
  'chmod',
  'exists',
])
const TWO_PATHS = ['rename', 'link', 'copyFile']

function wrap(object, name, count) {
  const original = object[name]
  if (typeof original !== 'function') return
  object[name] = function (...args) {
    for (let i = 0; i < count; i++) args[i] = fold(args[i])
    return original.apply(this, args)
  }
}

for (const name of ONE_PATH) for (const variant of [name, `${name}Sync`]) wrap(fs, variant, 1)
for (const name of TWO_PATHS) for (const variant of [name, `${name}Sync`]) wrap(fs, variant, 2)
for (const name of ONE_PATH) wrap(fs.promises, name, 1)
for (const name of TWO_PATHS) wrap(fs.promises, name, 2)
// The ES module bindings of node:fs and node:fs/promises take the wrapped functions too.
syncBuiltinESMExports()
