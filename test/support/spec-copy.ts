// A copy of the contract for SPEC_FILE, with one operation marked `x-stability: <marker>`: none
// of the served operations carries a marker, so the tests of x-stability serve such a copy.
import { chmod, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Test } from 'tap'
import { ROOT, tempDir } from './sandbox.js'

/** spec/openapi.yaml with `x-stability: <marker>` on `operationId`, in a temp folder anyone may read (a container too). */
export async function specMarking(t: Test, marker: string, operationId = 'createPet'): Promise<string> {
  const text = await readFile(join(ROOT, 'spec/openapi.yaml'), 'utf8')
  const anchor = `      operationId: ${operationId}\n`
  if (!text.includes(anchor)) throw new Error(`spec/openapi.yaml has no ${operationId}`)
  const dir = await tempDir(t)
  await chmod(dir, 0o755)
  const file = join(dir, 'openapi.yaml')
  await writeFile(file, text.replace(anchor, `${anchor}      x-stability: ${marker}\n`), { mode: 0o644 })
  return file
}
