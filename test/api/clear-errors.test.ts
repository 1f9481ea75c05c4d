// Every refusal says one accurate reason per fault, and a start that fails says so in one line
// that names the setting or the file.
import { writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { AUTH, JSON_HEADERS, runCliToEnd, startTestSandbox, tempDir } from '../support/sandbox.js'

t.test('one accurate reason per faulty field', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  const refusal = async (body: string): Promise<string> => {
    const res = await fetch(`${baseUrl}/pets`, { method: 'POST', headers: JSON_HEADERS, body })
    t.equal(res.status, 400)
    return ((await res.json()) as { message: string }).message
  }
  t.equal(await refusal('{"name":"Rex","categoryId":1.5}'), 'Invalid request body: body.categoryId must be an integer')
  t.equal(
    await refusal('{"name":"Rex","categoryId":1,"status":null}'),
    'Invalid request body: body.status must be one of: available, pending, sold',
  )
  t.equal(
    await refusal('{"name":5,"categoryId":"x"}'),
    'Invalid request body: body.name must be a string; body.categoryId must be an integer',
    'two faults, two reasons',
  )
  t.equal(await refusal('{"categoryId":1}'), 'Invalid request body: body.name is required')

  const get = async (path: string): Promise<{ status: number; message: string }> => {
    const res = await fetch(`${baseUrl}${path}`, { headers: AUTH })
    return { status: res.status, message: ((await res.json()) as { message: string }).message }
  }
  t.same(
    await get(`/pets/${'9'.repeat(1000)}`),
    {
      status: 400,
      message:
        'Invalid path parameter: path.petId must be an integer from -9007199254740991 to 9007199254740991 (larger numbers lose precision in JSON)',
    },
    'a 1000-digit id is an integer out of range, not "not an integer"',
  )
  t.same(await get(`/pets?limit=${'9'.repeat(1000)}`), {
    status: 400,
    message: 'Invalid query parameter: query.limit must be <= 100',
  })
})

t.test('a start that fails prints one line naming the setting or the file, no stack', async (t) => {
  const taken = createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => taken.close(resolve)))
  const { port } = taken.address() as { port: number }
  const inUse = await runCliToEnd({ PORT: String(port), DATA_FILE: ':memory:' })
  t.not(inUse.code, 0)
  t.equal(
    inUse.stderr,
    `animal-store-sandbox: PORT ${port} on HOST 127.0.0.1 is already in use: set PORT to a free port (0 for any)\n`,
  )

  const dir = await tempDir(t)
  await writeFile(join(dir, 'a-file'), '')
  const unwritable = join(dir, 'a-file', 'db.json')
  const noDataFile = await runCliToEnd({ DATA_FILE: unwritable })
  t.not(noDataFile.code, 0)
  t.match(
    noDataFile.stderr,
    new RegExp(`^animal-store-sandbox: Data file ${unwritable} cannot be (read|written): .+\\n$`),
    'one line naming the file',
  )
  t.notMatch(noDataFile.stderr, /\n\s+at /, 'no stack')

  const debug = await runCliToEnd({ DATA_FILE: unwritable, LOG_LEVEL: 'debug' })
  t.match(debug.stderr, /\n\s+at /, 'the stack at the debug log level')
})
