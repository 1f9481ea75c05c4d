// `animal-store-sandbox mcp --url …`: the built command as an MCP server on stdio, spawned by the
// SDK's own client, driving a sandbox that runs apart from it; and the official MCP Inspector's CLI
// against /mcp.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { Test } from 'tap'
import t from 'tap'
import { ADMIN_TOKEN, startControlSandbox } from '../support/control.js'
import { API_KEY, buildCli, ROOT, tempDir } from '../support/sandbox.js'
import { theLoop } from './loop.js'

const run = promisify(execFile)

async function connect(t: Test, cli: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'animal-store-tests', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', ...args], stderr: 'ignore' }),
  )
  t.teardown(() => client.close())
  return client
}

t.test('over stdio, from the built command', async (t) => {
  const [sandbox, cli] = await Promise.all([startControlSandbox(t), buildCli(t)])
  const args = ['--url', sandbox.origin, '--admin-token', ADMIN_TOKEN, '--api-key', API_KEY]

  t.test('the loop', async (t) => theLoop(t, await connect(t, cli, args), 'mcp-stdio'))

  // The tools' refusals are the server /mcp serves too (http.test.ts): the loop shows that the
  // command drives the sandbox it names, with the key and token it was given.
  t.test('a sandbox that is not there is a tool error, and the session goes on', async (t) => {
    const client = await connect(t, cli, ['--url', 'http://127.0.0.1:9'])
    const result = await client.callTool({ name: 'listPets', arguments: {} })
    t.equal(result.isError, true)
    t.match((result.content as Array<{ text: string }>)[0]?.text, /did not answer GET \/v1\/pets/)
    t.same(
      (await client.listPrompts()).prompts.map((p) => p.name),
      ['test-loop', 'explain-failure'],
    )
  })

  t.test('a bad --url stops it with one line', async (t) => {
    const failed = await run(process.execPath, [cli, 'mcp', '--url', `${sandbox.origin}/v1`]).catch((error) => error)
    t.equal(failed.code, 2)
    t.match(failed.stderr, /^animal-store-sandbox: mcp: --url must be the sandbox's address alone/)
    t.equal(failed.stderr.trim().split('\n').length, 1)
  })
})

t.test('the MCP Inspector CLI lists the tools of /mcp and calls one', async (t) => {
  const sandbox = await startControlSandbox(t)
  const home = await tempDir(t)
  const inspector = join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js')
  const inspect = async (...args: string[]) => {
    const { stdout } = await run(
      process.execPath,
      [
        inspector,
        '--cli',
        `${sandbox.origin}/mcp`,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${ADMIN_TOKEN}`,
        ...args,
      ],
      // Its state goes to a home of its own, not the user's.
      { env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') }, timeout: 60_000 },
    )
    return JSON.parse(stdout)
  }
  const { tools } = await inspect('--method', 'tools/list')
  t.ok(
    tools.some((tool: { name: string }) => tool.name === 'verify'),
    'the tools are listed',
  )
  const called = await inspect('--method', 'tools/call', '--tool-name', 'getPet', '--tool-arg', 'petId=1')
  t.match(called.structuredContent, { status: 200, headers: { sunset: /05 Dec 2030/ }, body: { id: 1 } })
})
