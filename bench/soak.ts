// A bounded mixed load against a running sandbox: reads, creates and bad requests from a few
// concurrent workers, for a fixed time, its health and memory sampled each second. Used by
// test/hardening/soak.test.ts (short) and the bench's soak scenario (`npm run soak`, minutes).
// Every answer is checked; every acknowledged create is checked after.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { API_KEY, SERVERS, rssMiB, startServer } from './servers.js'

type Pet = { id: number; name: string; categoryId: number; status: string }

interface BadRequest {
  readonly kind: string
  readonly status: number
  readonly weight: number
  readonly path: string
  readonly method?: string
  readonly body?: string
  readonly contentType?: string
  /** The key sent instead of the run's; null for no Authorization at all. */
  readonly key?: string | null
}

const OVERSIZED = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), categoryId: 1 })

/** Bad requests, the status each one must get, and how often each is sent. */
const BAD_REQUESTS: readonly BadRequest[] = [
  { kind: 'wrong key', status: 401, weight: 4, path: '/pets', key: 'wrong-key' },
  { kind: 'no auth', status: 401, weight: 2, path: '/pets', key: null },
  { kind: 'bad limit', status: 400, weight: 3, path: '/pets?limit=0' },
  { kind: 'bad petId', status: 400, weight: 2, path: '/pets/abc' },
  { kind: 'unknown path', status: 404, weight: 2, path: '/nowhere' },
  { kind: 'wrong method', status: 405, weight: 2, path: '/pets', method: 'DELETE' },
  { kind: 'invalid body', status: 400, weight: 3, path: '/pets', body: '{"name":1}' },
  { kind: 'malformed JSON', status: 400, weight: 3, path: '/pets', body: '{"name":' },
  { kind: 'not JSON', status: 415, weight: 2, path: '/pets', body: 'name=x', contentType: 'text/plain' },
  { kind: 'oversized body', status: 413, weight: 1, path: '/pets', body: OVERSIZED },
]

/** A request with the key (or another, or none) and, with a body, a POST of it. */
function init(key: string | null, body?: string, contentType = 'application/json'): RequestInit {
  const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` }
  if (body === undefined) return { headers }
  return { method: 'POST', body, headers: { ...headers, 'content-type': contentType } }
}

function pick<T extends { weight: number }>(items: readonly T[]): T {
  let roll = Math.random() * items.reduce((sum, item) => sum + item.weight, 0)
  for (const item of items) if ((roll -= item.weight) < 0) return item
  return items[items.length - 1] as T
}

/**
 * `durationMs` of mixed load from 6 workers against the sandbox at `origin`, run by process `pid`:
 * what was wrong (`problems`: a 5xx, a wrong status, a broken body), the acknowledged creates that
 * are `lost`, the health checks (GET /healthz) not answered 200, and the resident memory each second.
 */
export async function runSoak(origin: string, pid: number | undefined, apiKey: string, durationMs: number) {
  const baseUrl = `${origin}/v1`
  const byKind: Record<string, number> = {}
  const problems: string[] = []
  const created: Pet[] = []
  let requests = 0
  let unhealthy = 0
  const started = performance.now()
  const rss = [{ elapsedMs: 0, mib: rssMiB(pid) }]
  const healthChecks: Array<Promise<void>> = []
  const ticker = setInterval(() => {
    rss.push({ elapsedMs: performance.now() - started, mib: rssMiB(pid) })
    const answered = fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(30_000) })
    healthChecks.push(
      answered.then(
        (res) => void (res.status === 200 || unhealthy++),
        () => void unhealthy++,
      ),
    )
  }, 1_000)

  const expect = async (kind: string, path: string, request: RequestInit, status: number): Promise<any> => {
    requests++
    byKind[kind] = (byKind[kind] ?? 0) + 1
    let res: Response
    try {
      res = await fetch(baseUrl + path, { ...request, signal: AbortSignal.timeout(30_000) })
    } catch (error) {
      // The server closes the connection after a 413 while the client may still be sending.
      if (kind !== 'oversized body') problems.push(`${kind}: ${(error as Error).message}`)
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
    const isError = typeof body?.code === 'string' && typeof body?.message === 'string' && body?.status === status
    if (status >= 400 && !isError) problems.push(`${kind}: not an Error body: ${text.slice(0, 200)}`)
    return body
  }

  const worker = async (n: number): Promise<void> => {
    for (let i = 0; performance.now() - started < durationMs && problems.length < 20; i++) {
      const roll = Math.random()
      const known = created[Math.floor(Math.random() * created.length)]
      if (known && roll < 0.2) {
        const pet = await expect('get', `/pets/${known.id}`, init(apiKey), 200)
        if (pet && JSON.stringify(pet) !== JSON.stringify(known))
          problems.push(`get: ${JSON.stringify(pet)} is not ${JSON.stringify(known)}`)
      } else if (roll < 0.45) {
        const query = `limit=${1 + Math.floor(Math.random() * 100)}${Math.random() < 0.3 ? '&status=sold' : ''}`
        await expect('list', `/pets?${query}`, init(apiKey), 200)
      } else if (roll < 0.7) {
        const body = JSON.stringify({ name: `Soak ${n}-${i}`, categoryId: i % 10, status: 'pending' })
        const pet = await expect('create', '/pets', init(apiKey, body), 201)
        if (pet) created.push(pet)
      } else {
        const bad = pick(BAD_REQUESTS)
        const request = init(bad.key === undefined ? apiKey : bad.key, bad.body, bad.contentType)
        await expect(bad.kind, bad.path, { ...request, ...(bad.method ? { method: bad.method } : {}) }, bad.status)
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: 6 }, (_, n) => worker(n)))
  } finally {
    clearInterval(ticker)
  }
  rss.push({ elapsedMs: performance.now() - started, mib: rssMiB(pid) })
  // The last health checks may still be on their way: count them too.
  await Promise.all(healthChecks)
  const lost = await unfetchable(baseUrl, apiKey, created)
  return { requests, byKind, problems, created: created.length, lost, unhealthy, rss }
}

/** Checks every acknowledged create once more; returns the ids that are not served as acknowledged. */
export async function unfetchable(baseUrl: string, apiKey: string, created: readonly Pet[]): Promise<number[]> {
  const lost: number[] = []
  for (const pet of created) {
    const res = await fetch(`${baseUrl}/pets/${pet.id}`, { headers: { authorization: `Bearer ${apiKey}` } })
    if (res.status !== 200 || JSON.stringify(await res.json()) !== JSON.stringify(pet)) lost.push(pet.id)
  }
  return lost
}

// After the first half the heap has found its size; the second half may add this much at most,
// plus the store's own growth: every create is kept, and a stored pet costs about 0.9 KiB of
// resident memory on Node 20, V8's heap headroom included (measured: 153 MiB after 174,000 creates,
// from 54 MiB). A leak of what requests carry grows with every request, not with every pet.
const MAX_SECOND_HALF_GROWTH_MIB = 48
const RESIDENT_KIB_PER_STORED_PET = 1

/**
 * The soak scenario: `seconds` of mixed load against a sandbox in its own process. Not ok on any
 * wrong answer, a lost create, a failed health check, or memory that keeps climbing.
 */
export async function soak({ core, seconds }: { core: number | undefined; seconds: number }) {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-soak-'))
  const server = await startServer(SERVERS.sandbox, { core, env: { DATA_FILE: join(dir, 'db.json') } })
  try {
    const { rss, ...result } = await runSoak(server.origin, server.child.pid, API_KEY, seconds * 1000)
    const samples = rss.map(({ mib }) => mib)
    const middle = samples[Math.floor(samples.length / 2)] ?? 0
    const end = samples.at(-1) ?? 0
    // The load is steady: about half of the creates come in the second half.
    const bound = MAX_SECOND_HALF_GROWTH_MIB + (result.created / 2) * (RESIDENT_KIB_PER_STORED_PET / 1024)
    return {
      ok: result.problems.length === 0 && result.lost.length === 0 && result.unhealthy === 0 && end - middle <= bound,
      seconds,
      ...result,
      problems: result.problems.slice(0, 5),
      rssMiB: { start: samples[0], middle, end, peak: Math.max(...samples) },
      secondHalfGrowthMiB: Math.round((end - middle) * 10) / 10,
      secondHalfBoundMiB: Math.round(bound),
    }
  } finally {
    await server.stop()
    await rm(dir, { recursive: true, force: true })
  }
}
