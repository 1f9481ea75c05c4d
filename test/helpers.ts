// Shared test helpers: a real sandbox on an ephemeral port with a temp data file.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { loadConfig, type Config } from '../src/config.js'
import { SERVER_LIMITS, startSandbox, type Sandbox, type ServerLimits } from '../src/server.js'
import { createLogger } from '../src/logger.js'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const API_KEY = 'test-key-1'
export const AUTH = { authorization: `Bearer ${API_KEY}` }
export const JSON_HEADERS = { ...AUTH, 'content-type': 'application/json' }

/** A temp folder removed when the test ends. */
export async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-test-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** Settings as the CLI would read them from `env`, with test defaults: port 0, a temp data file, one key, no logs. */
export async function testConfig(t: Test, env: Record<string, string> = {}): Promise<Config> {
  const dir = await tempDir(t)
  const config = loadConfig([], { PORT: '0', API_KEYS: API_KEY, DATA_FILE: join(dir, 'db.json'), LOG_LEVEL: 'silent', ...env })
  if (config === 'help') throw new Error('unexpected help')
  return config
}

/** Starts an in-process sandbox; it is stopped when the test ends. */
export async function startTestSandbox(t: Test, env: Record<string, string> = {}, limits: Partial<ServerLimits> = {}): Promise<Sandbox & { config: Config }> {
  const config = await testConfig(t, env)
  const sandbox = await startSandbox(config, createLogger('silent'), { ...SERVER_LIMITS, ...limits })
  t.teardown(() => sandbox.close())
  return { ...sandbox, config }
}

export interface RunningCli {
  readonly child: ChildProcess
  readonly baseUrl: string
  stdout: string
  stderr: string
  /** Resolves with the exit code (or signal name). */
  readonly exited: Promise<number | string>
}

/** Runs the CLI (src/cli.ts through tsx) as a child process and waits for its banner. */
export async function spawnCli(t: Test, env: Record<string, string>, args: string[] = []): Promise<RunningCli> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', PORT: '0', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const run = { child, baseUrl: '', stdout: '', stderr: '' } as RunningCli & { baseUrl: string }
  child.stdout?.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()))
  ;(run as { exited: Promise<number | string> }).exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  const banner = await Promise.race([
    new Promise<string>((resolve) => {
      const check = (): void => {
        const match = /API: +(http:\/\/\S+)/.exec(run.stderr)
        if (match?.[1]) resolve(match[1])
      }
      child.stderr?.on('data', check)
    }),
    run.exited.then((code) => {
      throw new Error(`the CLI exited (${code}) before it was ready:\n${run.stderr}`)
    }),
  ])
  run.baseUrl = banner
  return run
}

/** Runs the CLI to completion (for settings that must stop the start). */
export function runCliToEnd(env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/**
 * The pets a data file holds on disk, read the way a restart reads them: the snapshot, then the
 * journal lines that end in a newline, when the journal belongs to that snapshot.
 */
export async function readStoredPets<P = { id: number; name: string; categoryId: number; status: string }>(dataFile: string): Promise<P[]> {
  const snapshot = JSON.parse(await readFile(dataFile, 'utf8')) as { pets: P[]; journal?: string }
  let journal = ''
  try {
    journal = await readFile(`${dataFile}.journal`, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const lines = journal.split('\n').slice(0, -1)
  const header = lines.length > 0 ? (JSON.parse(lines[0] as string) as { snapshot?: string }) : undefined
  if (snapshot.journal === undefined || header?.snapshot !== snapshot.journal) return snapshot.pets
  return [...snapshot.pets, ...lines.slice(1).map((line) => JSON.parse(line) as P)]
}
