// A bounded mixed load against a running sandbox: reads, creates and bad requests from a few
// concurrent workers, for a fixed time. Used by test/hardening/soak.test.ts (short) and the bench's
// soak scenario (`npm run soak`, minutes). Every answer is checked; every acknowledged create is
// checked after.
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { API_KEY, SERVERS, startServer } from './servers.js'

export interface SoakOptions {
  readonly baseUrl: string
  readonly apiKey: string
  readonly durationMs: number
  readonly workers: number
  /** Called about once a second with the time elapsed, e.g. to sample memory. */
  readonly onTick?: (elapsedMs: number) => void
}

export interface SoakResult {
  readonly requests: number
  readonly byKind: Record<string, number>
  /** Answers that were not what the request deserved (a 5xx, a wrong status, a broken body). */
  readonly problems: string[]
  readonly created: Array<{ id: number; name: string; categoryId: number; status: string }>
}

const OVERSIZED = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), categoryId: 1 })

/** Bad requests and the status each one must get. */
const BAD_REQUESTS: Array<{
  kind: string
  status: number
  path: string
  init: (key: string) => RequestInit
  weight: number
}> = [
  {
    kind: 'wrong key',
    status: 401,
    path: '/pets',
    init: () => ({ headers: { authorization: 'Bearer wrong-key' } }),
    weight: 4,
  },
  { kind: 'no auth', status: 401, path: '/pets', init: () => ({}), weight: 2 },
  { kind: 'bad limit', status: 400, path: '/pets?limit=0', init: auth, weight: 3 },
  { kind: 'bad petId', status: 400, path: '/pets/abc', init: auth, weight: 2 },
  { kind: 'unknown path', status: 404, path: '/nowhere', init: auth, weight: 2 },
  { kind: 'wrong method', status: 405, path: '/pets', init: (key) => ({ ...auth(key), method: 'DELETE' }), weight: 2 },
  { kind: 'invalid body', status: 400, path: '/pets', init: (key) => post(key, '{"name":1}'), weight: 3 },
  { kind: 'malformed JSON', status: 400, path: '/pets', init: (key) => post(key, '{"name":'), weight: 3 },
  {
    kind: 'not JSON',
    status: 415,
    path: '/pets',
    init: (key) => ({
      ...post(key, 'name=x'),
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
    }),
    weight: 2,
  },
  { kind: 'oversized body', status: 413, path: '/pets', init: (key) => post(key, OVERSIZED), weight: 1 },
]

function auth(key: string): RequestInit {
  return { headers: { authorization: `Bearer ${key}` } }
}

function post(key: string, body: string): RequestInit {
  return { method: 'POST', body, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } }
}

function pick<T extends { weight: number }>(items: readonly T[]): T {
  let roll = Math.random() * items.reduce((sum, item) => sum + item.weight, 0)
  for (const item of items) if ((roll -= item.weight) < 0) return item
  return items[items.length - 1] as T
}

export async function runSoak({ baseUrl, apiKey, durationMs, workers, onTick }: SoakOptions): Promise<SoakResult> {
  const byKind: Record<string, number> = {}
  const problems: string[] = []
  const created: SoakResult['created'] = []
  let requests = 0
  const started = performance.now()
  const ticker = setInterval(() => onTick?.(performance.now() - started), 1_000)

  const expect = async (kind: string, path: string, init: RequestInit, status: number): Promise<unknown> => {
    requests++
    byKind[kind] = (byKind[kind] ?? 0) + 1
    let res: Response
    try {
      res = await fetch(baseUrl + path, { ...init, signal: AbortSignal.timeout(30_000) })
    } catch (error) {
      // The server closes the connection after a 413 while the client may still be sending.
      if (kind === 'oversized body') return undefined
      problems.push(`${kind}: ${(error as Error).message}`)
      return undefined
    }
    const text = await res.text()
    let body: any
    try {
      body = JSON.parse(text)
    } catch {
      problems.push(`${kind}: ${res.status} with a body that is not JSON`)
      return undefined
    }
    if (res.status !== status) {
      problems.push(`${kind}: ${res.status} instead of ${status}: ${text.slice(0, 300)}`)
      return undefined
    }
    if (
      status >= 400 &&
      (body?.status !== status || typeof body?.code !== 'string' || typeof body?.message !== 'string')
    )
      problems.push(`${kind}: not an Error body: ${text.slice(0, 200)}`)
    return body
  }

  const worker = async (n: number): Promise<void> => {
    for (let i = 0; performance.now() - started < durationMs && problems.length < 20; i++) {
      const roll = Math.random()
      if (roll < 0.45) {
        const known = created[Math.floor(Math.random() * created.length)]
        if (known && roll < 0.2) {
          const pet = await expect('get', `/pets/${known.id}`, auth(apiKey), 200)
          if (pet && JSON.stringify(pet) !== JSON.stringify(known))
            problems.push(`get: ${JSON.stringify(pet)} is not ${JSON.stringify(known)}`)
        } else
          await expect(
            'list',
            `/pets?limit=${1 + Math.floor(Math.random() * 100)}${Math.random() < 0.3 ? '&status=sold' : ''}`,
            auth(apiKey),
            200,
          )
      } else if (roll < 0.7) {
        const pet = (await expect(
          'create',
          '/pets',
          post(apiKey, JSON.stringify({ name: `Soak ${n}-${i}`, categoryId: i % 10, status: 'pending' })),
          201,
        )) as SoakResult['created'][number] | undefined
        if (pet) created.push(pet)
      } else {
        const bad = pick(BAD_REQUESTS)
        await expect(bad.kind, bad.path, bad.init(apiKey), bad.status)
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: workers }, (_, n) => worker(n)))
  } finally {
    clearInterval(ticker)
  }
  return { requests, byKind, problems, created }
}

/** Checks every acknowledged create once more; returns the ids that are not served as acknowledged. */
export async function unfetchable(baseUrl: string, apiKey: string, created: SoakResult['created']): Promise<number[]> {
  const lost: number[] = []
  for (const pet of created) {
    const res = await fetch(`${baseUrl}/pets/${pet.id}`, { headers: { authorization: `Bearer ${apiKey}` } })
    if (res.status !== 200 || JSON.stringify(await res.json()) !== JSON.stringify(pet)) lost.push(pet.id)
  }
  return lost
}

/** Resident memory of a process, in MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
  return Math.round((kb / 1024) * 10) / 10
}

// After the first half the heap has found its size; the second half may add this much at most,
// plus the store's own growth: every create is kept, and a stored pet costs about 0.9 KiB of
// resident memory on Node 20, V8's heap headroom included (measured: 153 MiB after 174,000 creates,
// from 54 MiB). A leak of what requests carry grows with every request, not with every pet.
const MAX_SECOND_HALF_GROWTH_MIB = 48
const RESIDENT_KIB_PER_STORED_PET = 1

/**
 * The soak scenario: `seconds` of mixed load from 6 workers against a sandbox in its own process.
 * Not ok on any wrong answer, a lost create, a failed health check, or memory that keeps climbing.
 */
export async function soak({ core, seconds }: { core: number | undefined; seconds: number }) {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-soak-'))
  const server = await startServer(SERVERS.sandbox, { core, env: { DATA_FILE: join(dir, 'db.json') } })
  const pid = server.child.pid as number
  const baseUrl = `${server.origin}/v1`
  try {
    const samples = [rssMiB(pid)]
    let unhealthy = 0
    const result = await runSoak({
      baseUrl,
      apiKey: API_KEY,
      durationMs: seconds * 1000,
      workers: 6,
      onTick: () => {
        samples.push(rssMiB(pid))
        fetch(`${server.origin}/healthz`).then(
          (res) => void (res.status === 200 || unhealthy++),
          () => void unhealthy++,
        )
      },
    })
    samples.push(rssMiB(pid))
    const lost = await unfetchable(baseUrl, API_KEY, result.created)
    const middle = samples[Math.floor(samples.length / 2)] ?? 0
    const end = samples.at(-1) ?? 0
    // The load is steady: about half of the creates come in the second half.
    const bound = MAX_SECOND_HALF_GROWTH_MIB + (result.created.length / 2) * (RESIDENT_KIB_PER_STORED_PET / 1024)
    const levelled = end - middle <= bound
    return {
      ok: result.problems.length === 0 && lost.length === 0 && unhealthy === 0 && levelled,
      seconds,
      requests: result.requests,
      byKind: result.byKind,
      problems: result.problems.slice(0, 5),
      created: result.created.length,
      lost,
      unhealthy,
      rssMiB: { start: samples[0], middle, end, peak: Math.max(...samples) },
      secondHalfGrowthMiB: Math.round((end - middle) * 10) / 10,
      secondHalfBoundMiB: Math.round(bound),
    }
  } finally {
    await server.stop()
    await rm(dir, { recursive: true, force: true })
  }
}
