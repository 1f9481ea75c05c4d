// The final state, once everything is healed: each namespace asked a GET on every replica (bounded,
// for wedged namespaces), then its pets, journal and faults read from every replica through the
// control API and from the database's tables.
import { unknownOutcome } from '../../../src/shared/database.js'
import { ADMIN, API } from '../../support/replicas.js'
import { WEDGE_MS, type Final, type ListedFault, type Probe, type Source } from './checker.js'
import { OP_HEADER } from './clients.js'
import type { Cluster } from './cluster.js'

/** The message of the 503 that says a commit's outcome is unknown, as a journal entry keeps it. */
const UNKNOWN_OUTCOME = unknownOutcome().message

/** A page of the journal, the most GET /__admin/requests answers. */
const PAGE = 1_000

export async function readFinal(cluster: Cluster, namespaces: readonly string[]): Promise<Final> {
  // All at once: a wedged namespace costs the run one bound, not one per replica and namespace.
  const probes: Probe[] = await Promise.all(
    cluster.replicas.flatMap((replica) => namespaces.map((namespace) => probe(replica.n, replica.origin, namespace))),
  )
  const read = await Promise.all(
    cluster.replicas.map((replica) =>
      readReplica(replica.n, replica.origin, namespaces).catch((error: unknown) => {
        // A replica whose control API does not answer is as wedged as a namespace that does not.
        probes.push({ replica: replica.n, namespace: '(every one)', ms: 0, error: (error as Error).message })
        return undefined
      }),
    ),
  )
  const sources = [...read.filter((source) => source !== undefined), await readDatabase(cluster, namespaces)]
  return { sources, probes }
}

async function probe(n: number, origin: string, namespace: string): Promise<Probe> {
  const started = performance.now()
  try {
    const res = await fetch(`${origin}/v1/pets?limit=1`, {
      headers: { ...API, 'x-sandbox-namespace': namespace },
      signal: AbortSignal.timeout(WEDGE_MS * 2),
    })
    await res.arrayBuffer()
    return { replica: n, namespace, status: res.status, ms: performance.now() - started }
  } catch (error) {
    return { replica: n, namespace, ms: performance.now() - started, error: (error as Error).name }
  }
}

async function control<T>(origin: string, path: string): Promise<T> {
  const res = await fetch(`${origin}/__admin/${path}`, { headers: ADMIN, signal: AbortSignal.timeout(WEDGE_MS * 2) })
  if (res.status !== 200) throw new Error(`GET ${origin}/__admin/${path} answered ${res.status}: ${await res.text()}`)
  return (await res.json()) as T
}

async function readReplica(n: number, origin: string, namespaces: readonly string[]): Promise<Source> {
  const [pets, journal, faults] = [
    new Map<string, string[]>(),
    new Map<string, string[]>(),
    new Map<string, ListedFault[]>(),
  ]
  const unknown = new Set<string>()
  for (const namespace of namespaces) {
    const query = `namespace=${namespace}`
    pets.set(
      namespace,
      (await control<{ name: string }[]>(origin, `pets?${query}`)).map((pet) => pet.name),
    )
    const entries: string[] = []
    for (let after: number | null = 0; after !== null;) {
      const page: { entries: Entry[]; next: number | null } = await control(
        origin,
        `requests?${query}&limit=${PAGE}&after=${after}`,
      )
      for (const entry of page.entries) {
        entries.push(entry.headers[OP_HEADER] ?? '')
        if (entry.error?.message === UNKNOWN_OUTCOME) unknown.add(entry.headers[OP_HEADER] ?? '')
      }
      after = page.next
    }
    journal.set(namespace, entries)
    faults.set(namespace, (await control<{ faults: ListedFault[] }>(origin, `faults?${query}`)).faults)
  }
  return { name: `replica ${n}`, pets, journal, faults, unknown }
}

async function readDatabase({ db }: Cluster, namespaces: readonly string[]): Promise<Source> {
  const [pets, journal, faults] = [
    new Map<string, string[]>(),
    new Map<string, string[]>(),
    new Map<string, ListedFault[]>(),
  ]
  const unknown = new Set<string>()
  for (const namespace of namespaces) {
    const names = await db.query<{ name: string }>("SELECT pet ->> 'name' AS name FROM pets WHERE namespace = $1", [
      namespace,
    ])
    pets.set(
      namespace,
      names.map((row) => row.name),
    )
    const ops = await db.query<{ op: string | null; message: string | null }>(
      `SELECT record -> 'headers' ->> '${OP_HEADER}' AS op, record -> 'error' ->> 'message' AS message
         FROM requests WHERE namespace = $1 ORDER BY id`,
      [namespace],
    )
    journal.set(
      namespace,
      ops.map((row) => row.op ?? ''),
    )
    for (const row of ops) if (row.message === UNKNOWN_OUTCOME) unknown.add(row.op ?? '')
    const state = await db.query<{ faults: ListedFault[] | null }>(
      "SELECT state -> 'faults' -> 'faults' AS faults FROM namespaces WHERE name = $1",
      [namespace],
    )
    faults.set(namespace, state[0]?.faults ?? [])
  }
  return { name: 'the database', pets, journal, faults, unknown }
}

/** A journal entry as the control API lists it: what the checker reads of it. */
interface Entry {
  readonly headers: Record<string, string>
  readonly error: { readonly message: string } | null
}
