// The nemesis's clients: each calls through the balancer or straight to a replica, in namespaces of
// its choice, and records every operation with its invocation, its completion and its answer, as
// the checker reads them. Seeded: the same seed gives each client the same choices.
import { seededRandom } from '../../support/random.js'
import { ADMIN, API } from '../../support/replicas.js'
import { FAULT_STATUS, type Answer, type Op, type OpKind } from './checker.js'
import type { Cluster } from './cluster.js'

/** A call with no answer by then is recorded without one (it may have taken effect or not). */
const CALL_TIMEOUT_MS = 15_000
/** Each client's bound on its operations, whatever the run's length. */
const MAX_OPS = 50_000
/** How many times a client sends a create with an Idempotency-Key, until an answer says what became of it. */
const MAX_TRIES = 10
/** The operations a fault is armed on. */
const FAULTED = ['createPet', 'listPets', 'getPet'] as const
export const OP_HEADER = 'x-nemesis-op'

export interface Clients {
  readonly history: Op[]
  stop(): Promise<void>
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

export function startClients(
  cluster: Cluster,
  {
    seed,
    clients,
    namespaces,
    now,
  }: { seed: number; clients: number; namespaces: readonly string[]; now: () => number },
): Clients {
  const history: Op[] = []
  let stopping = false

  const client = async (c: number): Promise<void> => {
    const random = seededRandom(seed * 1_000 + c)
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
    /** Pets this client was told it created, by namespace: what it reads back. */
    const mine = new Map<string, { id: number; op: string }[]>()
    /** A create with an Idempotency-Key whose answer did not say what became of it: sent again next. */
    let again: { namespace: string; name: string; key: string; body: unknown; tries: number } | undefined
    /** A pet created by an attempt sent again: read back next, while no reset is likely to have cleared it. */
    let created: { namespace: string; id: number; op: string } | undefined
    for (let i = 0; !stopping && i < MAX_OPS; i++) {
      const retry = again
      const readBack = created
      again = created = undefined
      const namespace = retry?.namespace ?? readBack?.namespace ?? pick(namespaces)
      // The first namespace is never reset: its creates are checked over the whole run.
      const r = retry === undefined && readBack === undefined ? random() : 0
      const kind: OpKind =
        readBack !== undefined
          ? 'read'
          : r < 0.5
            ? 'create'
            : r < 0.82
              ? 'read'
              : r < 0.9
                ? 'verify'
                : r < 0.96
                  ? 'arm'
                  : namespace !== namespaces[0] && r < 0.962
                    ? 'reset'
                    : 'read'
      const replica = random() < 0.6 ? undefined : pick(cluster.replicas).n
      const origin = replica === undefined ? cluster.balancer.url : (cluster.replicas[replica - 1]?.origin ?? '')
      const op: Mutable<Op> = { id: `c${c}-${i}`, kind, namespace, invokedAt: 0 }
      const api = { ...API, [OP_HEADER]: op.id, 'x-sandbox-namespace': namespace }
      const admin = { ...ADMIN, [OP_HEADER]: op.id }
      const query = `namespace=${namespace}`
      let request: { path: string; method?: string; headers: Record<string, string>; body?: unknown }
      if (kind === 'create') {
        // Every other create has an Idempotency-Key, and is sent again until an answer says what became of it.
        op.name = retry?.name ?? `pet-${seed}-${op.id}`
        op.key = retry?.key ?? (i % 2 === 0 ? `key-${seed}-${op.id}` : undefined)
        op.operationId = 'createPet'
        request = {
          path: '/v1/pets',
          method: 'POST',
          headers: {
            ...api,
            'content-type': 'application/json',
            ...(op.key === undefined ? {} : { 'idempotency-key': op.key }),
          },
          // An attempt sends the first one's body: another would be refused as the key reused.
          body: retry?.body ?? { name: op.name, categoryId: (i % 5) + 1 },
        }
      } else if (kind === 'read') {
        const pets = mine.get(namespace) ?? []
        const pet = readBack ?? (pets.length > 0 && random() < 0.6 ? pick(pets) : undefined)
        op.operationId = pet === undefined ? 'listPets' : 'getPet'
        op.reads = pet?.op
        request = { path: pet === undefined ? '/v1/pets?limit=5' : `/v1/pets/${pet.id}`, headers: api }
      } else if (kind === 'reset') {
        mine.delete(namespace)
        request = { path: `/__admin/reset?${query}`, method: 'POST', headers: admin }
      } else if (kind === 'arm') {
        op.operationId = pick(FAULTED)
        const after = Math.floor(random() * 6)
        op.fault = { id: 0, after }
        request = {
          path: `/__admin/faults?${query}`,
          method: 'POST',
          headers: admin,
          body: { operationId: op.operationId, status: FAULT_STATUS, after, times: 1 },
        }
      } else {
        // Its own latest calls that a replica answered, each expected in the journal exactly once.
        const earlier = history
          .filter((o) => o.id.startsWith(`c${c}-`) && o.namespace === namespace && o.answer?.replica !== undefined)
          .filter((o) => o.kind === 'create' || o.kind === 'read')
          .slice(-5)
        op.verified = { ids: earlier.map((o) => o.id) }
        request = {
          path: `/__admin/verify?${query}`,
          method: 'POST',
          headers: admin,
          body: {
            expectations: earlier.map((o) => ({
              operationId: o.operationId,
              headers: { [OP_HEADER]: o.id },
              count: 1,
            })),
          },
        }
      }
      op.invokedAt = now()
      try {
        const res = await fetch(`${origin}${request.path}`, {
          method: request.method ?? 'GET',
          headers: request.headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
        })
        const text = await res.text()
        op.completedAt = now()
        const body = parse(text)
        const answer: Answer = {
          status: res.status,
          code: typeof body?.['code'] === 'string' ? body['code'] : undefined,
          message: typeof body?.['message'] === 'string' ? body['message'] : undefined,
          retryAfter: res.headers.has('retry-after'),
          replayed: res.headers.get('idempotent-replayed') === 'true',
          replica: replica ?? cluster.servedBy(res),
          body: body ?? text,
        }
        op.answer = answer
        if (kind === 'create' && res.status === 201 && typeof body?.['id'] === 'number') {
          mine.set(namespace, [...(mine.get(namespace) ?? []), { id: body['id'], op: op.id }])
          if (retry !== undefined) created = { namespace, id: body['id'], op: op.id }
        }
        if (kind === 'arm')
          op.fault = res.status === 201 && op.fault ? { id: Number(body?.['id']), after: op.fault.after } : undefined
        if (kind === 'verify' && res.status === 200 && op.verified) {
          const results = (body?.['expectations'] ?? []) as { matched: number }[]
          op.verified = { ids: op.verified.ids, matched: results.map((e) => e.matched) }
        }
      } catch (error) {
        op.completedAt = now()
        const cause = (error as { cause?: { code?: string } }).cause?.code
        op.error = `${(error as Error).name}${cause ? ` ${cause}` : ''}`
        if (kind === 'arm') op.fault = undefined
        // A replica that is down refuses at once: a short pause keeps the loop from spinning.
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      history.push(op)
      const tries = (retry?.tries ?? 0) + 1
      if (op.key !== undefined && op.name !== undefined && sendAgain(op.answer) && tries < MAX_TRIES)
        again = { namespace, name: op.name, key: op.key, body: request.body, tries }
    }
  }

  const running = Array.from({ length: clients }, (_, c) => client(c + 1))
  return {
    history,
    async stop() {
      stopping = true
      await Promise.all(running)
    },
  }
}

/**
 * Whether a create's answer leaves it to be sent again: none, a 5xx (a refusal that invites it, an
 * unknown outcome, the balancer's), or its key in use by the first attempt still being written.
 */
function sendAgain(answer: Answer | undefined): boolean {
  return answer === undefined || answer.status >= 500 || answer.code === 'idempotency_key_in_use'
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
