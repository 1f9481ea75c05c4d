// Every `npx animal-store-sandbox` command of the docs, run in a scratch project as docs/cli.md
// says: a copy of the files git tracks as the clone beside the project, its install block run as
// written, then each fenced block that runs the command, read from the Markdown (a block the test
// does not know fails it), with real inputs: a free port in place of 4010, a stand-in of the real
// API in place of staging, a session it recorded, a journal and a Pact the sandbox exported. Inline
// mentions are names or synopses: each must name a command that some block runs.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { cp, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { marked } from 'marked'
import t, { type Test } from 'tap'
import { parse } from 'yaml'
import { clientSequence, startStandIn } from '../fidelity/stand-in.js'
import { API_KEY, ROOT, freePort, tempDir } from '../support/sandbox.js'
import { CLEAN_ENV, mustRun, runProgram, skipWithout } from '../support/system-programs.js'
import { startWithNpx } from './npx.js'

const COMMAND = 'npx animal-store-sandbox'
const STAGING = 'https://staging.example.com/v1'

/** The Markdown that may show the command: the README, docs/, the modules' READMEs, examples/. */
function markdownFiles(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.md') && !file.includes('node_modules'))
      .map((file) => join(dir, file))
  const modules = readdirSync(join(ROOT, 'modules')).map((module) => join('modules', module, 'README.md'))
  return [
    'README.md',
    ...under('docs'),
    ...modules.filter((file) => existsSync(join(ROOT, file))),
    ...under('examples'),
  ]
}

interface Block {
  readonly file: string
  readonly language: string
  readonly code: string
}

const blocks: Block[] = []
const mentions: Array<{ file: string; text: string }> = []
for (const file of markdownFiles())
  marked.walkTokens(marked.lexer(readFileSync(join(ROOT, file), 'utf8')), (token) => {
    if (token.type === 'code')
      blocks.push({ file, language: String(token['lang']), code: `${String(token['text'])}\n` })
    if (token.type === 'codespan' && String(token['text']).startsWith(COMMAND))
      mentions.push({ file, text: String(token['text']) })
  })
/** The one block of `file` that holds `has`. */
function blockOf(file: string, has: string, among: Block[] = blocks): Block {
  const found = among.find((block) => block.file === file && block.code.includes(has))
  if (found === undefined) throw new Error(`${file} has no block with ${has}`)
  return found
}
/** The blocks that run the command: shell lines, or an MCP configuration's `npx` server. */
const commandBlocks = blocks.filter(
  (block) => block.code.includes(COMMAND) || /"command": "npx",\s*"args": \["animal-store-sandbox"/.test(block.code),
)

/** The command's subcommand in a line: `replay`, `pact verify`, `mcp`, or `start` for the server itself. */
const subcommand = (line: string): string =>
  /^(pact verify|replay|mcp)\b/.exec(line.slice(line.indexOf(COMMAND) + COMMAND.length).trim())?.[1] ?? 'start'

t.setTimeout(30 * 60_000)
const workspace = await tempDir(t)
const clone = join(workspace, 'animal-store-sandbox')
const project = join(workspace, 'project')
const port = await freePort()
const origin = `http://127.0.0.1:${port}`
const standInKey = 'staging-key'
const standIn = await startStandIn(standInKey)
t.teardown(() => standIn.close())
const env = { npm_config_prefer_offline: 'true', NO_COLOR: '1', STAGING_KEY: standInKey }

/** A command of the docs as this test runs it: the free port for 4010, the stand-in for staging. */
const localized = (code: string): string => code.replaceAll('4010', String(port)).replaceAll(STAGING, standIn.baseUrl)

/** Runs `script` with bash in the project, then ends what it started with `&` (each job is a process group). */
const runScript = (script: string, more: Record<string, string> = {}) => {
  const endJobs = `set -m\ntrap 'for job in $(jobs -p); do kill -- -$job 2>/dev/null; done' EXIT\n`
  return runProgram('bash', ['-euo', 'pipefail', '-c', endJobs + script], project, { ...env, ...more })
}

/** Starts the installed command in the project on the free port, until the test ends or `stop()`. */
const startSandbox = (t: Test, more: Record<string, string> = {}) =>
  startWithNpx(t, project, [], { ...env, PORT: String(port), ...more })

t.test('the docs show the command in fenced blocks this test runs, and name only those commands', async (t) => {
  const ran = new Set(
    commandBlocks.flatMap((block) =>
      block.code
        .split('\n')
        .filter((l) => l.includes(COMMAND))
        .map(subcommand),
    ),
  )
  if (commandBlocks.some((block) => block.language === 'json')) ran.add('mcp') // an MCP configuration's npx server
  for (const { file, text } of mentions)
    t.ok(ran.has(subcommand(text)), `${file}: \`${text}\` names a command a block runs`)
  t.same([...ran].sort(), ['mcp', 'pact verify', 'replay', 'start'])
  const bare = blocks
    .filter((block) => block.language === 'sh')
    .flatMap((block) => block.code.split('\n').map((line) => `${block.file}: ${line}`))
    .filter((line) => /(: |[;&|(]\s*)animal-store-sandbox /.test(line))
  t.same(bare, [], 'no shell line runs the command without npx')
})

// The blocks wait with curl and read the drift with jq, as a team's CI would.
const skip = skipWithout(t, 'curl', 'curl') || skipWithout(t, 'jq', 'jq')
t.test('installed from a clone as docs/cli.md says, every documented command succeeds', { skip }, async (t) => {
  // The clone: the files git tracks, as they are in this checkout.
  const tracked = (await mustRun('git', ['ls-files', '-z'], ROOT)).stdout.split('\0').filter(Boolean)
  for (const file of tracked) if (existsSync(join(ROOT, file))) await cp(join(ROOT, file), join(clone, file))
  await mkdir(project)
  // The project's own suite, for the nightly job's `npm test`: reads as a client would.
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'pets-client', private: true, type: 'module', scripts: { test: 'node suite.mjs' } }),
  )
  await writeFile(
    join(project, 'suite.mjs'),
    `const headers = { authorization: 'Bearer sandbox-api-key' }\n` +
      `for (const path of ['/pets', '/pets?status=sold&limit=2', '/pets/1']) {\n` +
      `  const res = await fetch('${origin}/v1' + path, { headers })\n` +
      `  if (!res.ok) throw new Error(path + ' answered ' + res.status)\n}\n`,
  )
  const install = blockOf('docs/cli.md', 'npm pack').code
  await mustRun('bash', ['-euo', 'pipefail', '-c', install], project, env)

  const handled = new Set<Block>()
  const run = async (block: Block, script: string, more: Record<string, string> = {}) => {
    handled.add(block)
    const result = await runScript(script, more)
    t.equal(
      result.code,
      0,
      `${block.file}: the block ran green${result.code === 0 ? '' : `:\n${result.output.slice(-3000)}`}`,
    )
  }
  const find = (file: string, has: string): Block => blockOf(file, has, commandBlocks)

  // The server itself, as the README's inline command starts it.
  const starts = new Set(
    mentions.filter((m) => subcommand(m.text) === 'start' && /--port 4010/.test(m.text)).map((m) => m.text),
  )
  t.ok(starts.size > 0, 'the README shows the server started by the command')
  for (const text of starts) {
    const started = await runScript(
      `${localized(text)} &\nuntil curl -fs ${origin}/healthz >/dev/null; do sleep 0.2; done`,
    )
    t.equal(started.code, 0, `\`${text}\` answers its health check`)
  }

  // Inputs: a session recorded against the stand-in, the journal of that namespace, a Pact exported.
  await mkdir(join(project, 'sessions'))
  const recorder = await startSandbox(t, {
    UPSTREAM: standIn.baseUrl,
    UPSTREAM_API_KEY: standInKey,
    UPSTREAM_MODE: 'record',
    SESSION_DIR: 'sessions',
    API_KEYS: API_KEY,
  })
  await clientSequence(`${origin}/v1`, 'rec')
  const journal = await fetch(`${origin}/__admin/requests?namespace=rec`, {
    headers: { authorization: 'Bearer sandbox-admin-token' },
  })
  await writeFile(join(project, 'journal.json'), await journal.text())
  await recorder.stop()
  standIn.reset()

  const target = await startSandbox(t)
  await run(find('docs/fidelity.md', 'replay sessions/'), localized(find('docs/fidelity.md', 'replay sessions/').code))
  const exportBlock = blockOf('docs/pact.md', '> pacts/web-shop-animal-store.json').code
  await mkdir(join(project, 'pacts'))
  const shop = { 'x-sandbox-namespace': 'web-shop', authorization: 'Bearer sandbox-admin-token' }
  await fetch(`${origin}/__admin/reset?namespace=web-shop`, {
    method: 'POST',
    headers: { ...shop, 'content-type': 'application/json' },
    body: JSON.stringify({ seed: 7, count: 20 }),
  })
  const api = { 'x-sandbox-namespace': 'web-shop', authorization: 'Bearer sandbox-api-key' }
  await fetch(`${origin}/v1/pets`, {
    method: 'POST',
    headers: { ...api, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 3 }),
  })
  await (await fetch(`${origin}/v1/pets?limit=5`, { headers: api })).arrayBuffer()
  await mustRun('bash', ['-euo', 'pipefail', '-c', localized(exportBlock)], project, env)
  await run(find('docs/pact.md', 'pact verify'), localized(find('docs/pact.md', 'pact verify').code))
  await target.stop()

  // The MCP configuration's server on stdio, against a sandbox with the configuration's secrets.
  const mcpBlock = commandBlocks.find((block) => block.file === 'docs/mcp.md' && block.language === 'json')
  if (mcpBlock === undefined) throw new Error('docs/mcp.md has no stdio configuration')
  handled.add(mcpBlock)
  const server = (
    JSON.parse(localized(mcpBlock.code)) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>
    }
  ).mcpServers['animal-store']!
  const secrets = await startSandbox(t, server.env)
  const client = new Client({ name: 'commands-test', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { ...(CLEAN_ENV as Record<string, string>), ...server.env },
      cwd: project,
      stderr: 'ignore',
    }),
  )
  t.ok(
    (await client.listTools()).tools.some((tool) => tool.name === 'listPets'),
    'the stdio server lists the tools',
  )
  const listed = await client.callTool({ name: 'listPets', arguments: {} })
  t.notOk(listed.isError, 'and a tool call reaches the sandbox')
  await client.close()
  await secrets.stop()

  // The nightly comparison, in the README and as the workflow of docs/fidelity.md, on the stand-in's own pets.
  standIn.reset()
  const nightly = find('README.md', 'UPSTREAM=')
  await run(nightly, localized(nightly.code), { PORT: String(port) })
  const workflow = find('docs/fidelity.md', 'npx animal-store-sandbox --in-memory &')
  const steps = (parse(workflow.code) as { jobs: { compare: { steps: Array<{ run?: string; env?: object }> } } }).jobs
    .compare.steps
  const script: string[] = []
  for (const step of steps) {
    if (step.run === undefined) continue // actions/checkout: the project is here
    // The clone and its tarball: done above, by the install block of docs/cli.md.
    if (step.run.startsWith('git clone ') || install.includes(step.run.trim())) continue
    const exports = Object.entries(step.env ?? {}).map(
      ([name, value]) => [name, String(value).replace('${{ secrets.STAGING_API_KEY }}', standInKey)] as const,
    )
    script.push(...exports.map(([name, value]) => `export ${name}=${JSON.stringify(value)}`), step.run)
    script.push(...exports.map(([name]) => `unset ${name}`))
  }
  await run(workflow, localized(script.join('\n')), { PORT: String(port) })

  t.same(
    commandBlocks.filter((block) => !handled.has(block)).map((block) => `${block.file}: ${block.code}`),
    [],
    'every block that runs the command ran',
  )
})
