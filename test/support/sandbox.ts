// Shared test helpers: a real sandbox on an ephemeral port with a temp data file.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Test } from 'tap'
import { loadConfig, type Config } from '../../src/config.js'
import { SERVER_LIMITS, startSandbox, type Sandbox, type ServerLimits } from '../../src/sandbox.js'
import { createLogger } from '../../src/logger.js'
import type { DataFileOptions } from '../../src/store/data-file.js'
import { DataFileLock } from '../../src/store/data-file-lock.js'

export { freePort, waitFor, type WaitForOptions } from '../../scripts/lib/processes.js'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const API_KEY = 'test-key-1'
export const AUTH = { authorization: `Bearer ${API_KEY}` }
export const JSON_HEADERS = { ...AUTH, 'content-type': 'application/json' }

/**
 * Adds a pet through the API, as a client would (POST <baseUrl>/pets): the one way tests create
 * one. `pet` defaults to a valid NewPet; `headers` replace the test key (another key, a namespace).
 */
export function postPet(
  baseUrl: string,
  pet: Record<string, unknown> = { name: 'Rex', categoryId: 1 },
  headers: Record<string, string> = AUTH,
): Promise<Response> {
  return fetch(`${baseUrl}/pets`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(pet),
  })
}

/** A temp folder removed when the test ends. */
export async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-test-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** Settings as the CLI would read them from `env`, with test defaults: port 0, a temp data file, one key, no logs. */
export async function testConfig(t: Test, env: Record<string, string> = {}): Promise<Config> {
  const dir = await tempDir(t)
  const config = loadConfig([], {
    PORT: '0',
    API_KEYS: API_KEY,
    DATA_FILE: join(dir, 'db.json'),
    LOG_LEVEL: 'silent',
    ...env,
  })
  if (config === 'help') throw new Error('unexpected help')
  return config
}

/**
 * Starts an in-process sandbox; it is stopped when the test ends. `storage` can put a file system
 * that fails chosen calls under its data file (test/store/faulty-file-system.ts). Its log lines
 * (none unless `env` sets LOG_LEVEL) are kept in `logs`, parsed.
 */
export async function startTestSandbox(
  t: Test,
  env: Record<string, string> = {},
  limits: Partial<ServerLimits> = {},
  storage: DataFileOptions = {},
): Promise<Sandbox & { config: Config; logs: Array<Record<string, unknown>> }> {
  const config = await testConfig(t, env)
  const logs: Array<Record<string, unknown>> = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().trim().split('\n')) logs.push(JSON.parse(line) as Record<string, unknown>)
      done()
    },
  })
  const logger = createLogger(config.logLevel, sink)
  const sandbox = await startSandbox(config, logger, { ...SERVER_LIMITS, ...limits }, storage)
  t.teardown(() => sandbox.close())
  return { ...sandbox, config, logs }
}

/**
 * Stops `sandbox` as a kill -9 of its process would leave it, within this process: it serves no
 * more, nothing is flushed, and its data file's lock stays on disk naming a start that is gone,
 * which the next start takes over.
 */
export function stopAsKilled(sandbox: Sandbox, dataFile: string): void {
  sandbox.server.close()
  DataFileLock.abandon(dataFile)
}

export interface RunningCli {
  readonly child: ChildProcess
  readonly baseUrl: string
  stdout: string
  stderr: string
  /** Resolves with the exit code (or signal name) once the process has exited and its output is all read. */
  readonly exited: Promise<number | string>
}

/** The CLI (src/cli.ts through tsx, or `builtCli`, from buildCli) as a child process, its output gathered. */
function startCli(env: Record<string, string>, args: string[], builtCli?: string): Omit<RunningCli, 'baseUrl'> {
  const command = builtCli === undefined ? ['--import', 'tsx', join(ROOT, 'src/cli.ts')] : [builtCli]
  const child = spawn(process.execPath, [...command, ...args], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  // 'close', not 'exit': 'exit' may come before the last of stdout and stderr has been read.
  const exited = new Promise<number | string>((resolve) =>
    child.once('close', (code, signal) => resolve(code ?? signal ?? -1)),
  )
  const run = { child, stdout: '', stderr: '', exited }
  child.stdout?.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()))
  return run
}

/** Runs the CLI as a child process (ended when the test ends) and waits for its banner. */
export async function spawnCli(
  t: Test,
  env: Record<string, string>,
  args: string[] = [],
  builtCli?: string,
): Promise<RunningCli> {
  const run = startCli({ NODE_ENV: 'production', ...env }, args, builtCli)
  t.teardown(() => {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL')
  })
  return Object.assign(run, { baseUrl: (await waitForBanner(run.child, run.exited)).apiUrl })
}

/** The start banner a CLI prints on stderr, and the API's URL in it; fails if the process exits first. */
export function waitForBanner(
  child: ChildProcess,
  exited: Promise<number | string>,
): Promise<{ apiUrl: string; banner: string }> {
  let stderr = ''
  return Promise.race([
    new Promise<{ apiUrl: string; banner: string }>((resolve) => {
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
        const match = /API: +(https?:\/\/\S+)/.exec(stderr)
        if (match?.[1]) resolve({ apiUrl: match[1], banner: stderr })
      })
    }),
    exited.then((code) => {
      throw new Error(`the process exited (${code}) before it was ready:\n${stderr}`)
    }),
  ])
}

/**
 * The command built from src/ as `npm run build` builds it (one bundle, and the specs with their
 * validators precompiled), into a temp folder beside links to the package's spec/, fixtures/ and
 * node_modules/. It starts in a fraction of the time src/cli.ts takes under tsx, for tests that
 * start the server dozens of times; pass it to spawnCli.
 */
export async function buildCli(t: Test): Promise<string> {
  const pkg = await tempDir(t)
  for (const name of ['spec', 'fixtures', 'node_modules', 'package.json'])
    await symlink(join(ROOT, name), join(pkg, name))
  const dist = join(pkg, 'dist')
  await mkdir(dist)
  const tsx = (script: string): Promise<unknown> =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, script), dist], { cwd: ROOT })
  await Promise.all([tsx('scripts/bundle-cli.ts'), tsx('scripts/compile-spec.ts')])
  return join(dist, 'cli.js')
}

/** Runs Redocly lint on a spec file of the project; resolves with its exit code and output. */
export async function redoclyLint(file: string): Promise<{ code: number; output: string }> {
  const result = await promisify(execFile)(
    process.execPath,
    [join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--format=stylish'],
    {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  ).catch((error: { code: number; stdout: string; stderr: string }) => error)
  return { code: 'code' in result ? result.code : 0, output: result.stdout + result.stderr }
}

/**
 * Runs the CLI to completion (for settings that must stop the start). In memory unless `env` names
 * a DATA_FILE: never on the default data file, which a sandbox running in the checkout may hold.
 * Killed past `timeoutMs`, a bound for a loaded machine (tsx alone may take seconds to start).
 */
export async function runCliToEnd(
  env: Record<string, string>,
  args: string[] = [],
  timeoutMs = 60_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = startCli({ DATA_FILE: ':memory:', ...env }, args)
  const timer = setTimeout(() => run.child.kill('SIGKILL'), timeoutMs)
  const exit = await run.exited
  clearTimeout(timer)
  return { code: typeof exit === 'number' ? exit : null, stdout: run.stdout, stderr: run.stderr }
}

export interface StoredPet {
  readonly id: number
  readonly name: string
  readonly categoryId: number
  readonly status: string
}

/**
 * The pets a data file holds on disk, read the way a restart reads them: the image, then the
 * append log's records (lines that end in a newline, up to the first that is not a JSON object: the
 * torn end), when the append log belongs to that image (its header names the image's id).
 */
export async function readStoredPets<P = StoredPet>(dataFile: string): Promise<P[]> {
  const image = JSON.parse(await readFile(dataFile, 'utf8')) as { pets: P[]; journal?: string }
  let appendLog = ''
  try {
    appendLog = await readFile(`${dataFile}.journal`, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const lines = appendLog.split('\n').slice(0, -1)
  const header = lines.length > 0 ? (JSON.parse(lines[0] as string) as { snapshot?: string }) : undefined
  if (image.journal === undefined || header?.snapshot !== image.journal) return image.pets
  const records: P[] = []
  for (const line of lines.slice(1)) {
    const record = parseObject(line)
    if (record === undefined) break
    records.push(record as P)
  }
  return [...image.pets, ...records]
}

function parseObject(line: string): object | undefined {
  try {
    const value: unknown = JSON.parse(line)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined
  } catch {
    return undefined
  }
}
