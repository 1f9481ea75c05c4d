// The bundled command as V8 reads it (scripts/bundle-cli.ts).
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { buildCli } from '../support/sandbox.js'

t.test('the bundle is ASCII, so that V8 holds its source as one-byte text', async (t) => {
  const source = await readFile(await buildCli(t))
  const at = source.findIndex((byte) => byte > 0x7f)
  t.equal(
    at,
    -1,
    `no byte past ASCII${at === -1 ? '' : `, found one in: ${source.subarray(at - 60, at + 20).toString()}`}`,
  )
})
