// A bounded mixed load against a running sandbox: reads, creates and bad requests from a few
// concurrent workers, for a fixed time. Used by test/soak.test.ts (short) and scripts/soak.ts
// (`npm run soak`, minutes). Every answer is checked; every acknowledged create is checked after.
import { readFileSync } from 'node:fs'

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
