// A copy of the contract for SPEC_FILE, with one operation marked `x-stability: <marker>`: none
// of the served operations carries a marker, so the tests of x-stability serve such a copy.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Test } from 'tap'
import { ROOT, tempDir } from './sandbox.js'

/** spec/openapi.yaml with `x-stability: <marker>` on `operationId`, in a temp folder. */
export async function specMarking(t: Test, marker: string, operationId = 'createPet'): Promise<string> {
  const text = await readFile(join(ROOT, 'spec/openapi.yaml'), 'utf8')
  const anchor = `      operationId: ${operationId}\n`
  if (!text.includes(anchor)) throw new Error(`spec/openapi.yaml has no ${operationId}`)
  const file = join(await tempDir(t), 'openapi.yaml')
  await writeFile(file, text.replace(anchor, `${anchor}      x-stability: ${marker}\n`))
  return file
}
