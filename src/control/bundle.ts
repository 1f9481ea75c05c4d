// The bundle (GET /__admin/bundle): one versioned JSON document holding what a replay needs to
// reproduce a namespace's calls, or one trace's, and what a shrink needs to find the faults that
// mattered. docs/bundle.md describes the format; readers refuse a version they do not know.
// Its handler is a room of the control API of its own (control-api.ts merges it).
import type { components, operations } from '../contract/admin-types.js'
import type { Fault } from '../namespaces/faults.js'
import type { Namespace } from '../namespaces/namespace.js'
import type { Namespaces } from '../namespaces/namespaces.js'
import type { Baseline } from '../store/baseline.js'
import type { Pet, FrozenPets } from '../store/pets.js'
import type { AnimalStore } from '../store/store.js'
import { TypedText } from '../http/reply.js'
import type { HandlersOf } from '../pipeline/pipeline.js'

export const BUNDLE_FORMAT = 'animal-store-sandbox.bundle'
export const BUNDLE_VERSION = 1

/** As the spec's Bundle schema has it, with the faults as the sandbox keeps them. */
export type Bundle = Omit<components['schemas']['Bundle'], 'faults'> & { faults: Fault[] }
export type BundleEntry = Bundle['journal']['entries'][number]

/** What a bundle says of the sandbox that made it (src/bundle-facts.ts gathers them at start). */
export interface BundleFacts {
  readonly version: string
  readonly specSha256: string
  /** By variable name (CLOCK, MIN_STABILITY, MAX_PETS…), as text a start reads back. */
  readonly settings: Readonly<Record<string, string>>
}

/** What the sandbox hands the bundle: its facts, the redactor's cut of every secret, and the initial data's pets. */
export interface BundleSource extends BundleFacts {
  readonly redact: (text: string) => string
  /** The pets of a seed or fixtures (a snapshot's are the namespaces'). */
  readonly frozenPets: (source: Baseline) => Promise<FrozenPets>
}

/** What the handler reads of its context (ControlContext has it: ControlApiOptions carries `bundle`). */
interface BundleContext {
  readonly namespace: Namespace
  readonly namespaces: Namespaces
  readonly bundle?: BundleSource | undefined
}

export const bundleHandlers: Pick<HandlersOf<operations, BundleContext>, 'getBundle'> = {
  async getBundle({ query: { traceId } }, { namespace, namespaces, bundle }) {
    if (bundle === undefined) throw new Error('the control API was started without the facts of a bundle')
    const text = JSON.stringify(await bundleOf(namespace, traceId ?? null, bundle, namespaces))
    // Secrets are cut from the whole text, in every form they may take there (the journal's cut).
    return { status: 200, body: new TypedText('application/json; charset=utf-8', bundle.redact(text)) }
  },
}

async function bundleOf(
  namespace: Namespace,
  traceId: string | null,
  source: BundleSource,
  namespaces: Namespaces,
): Promise<Bundle> {
  const store = await namespace.store()
  const pets = store.all()
  const { clock, journal } = namespace
  return {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    createdAt: new Date().toISOString(),
    sandbox: { version: source.version, specSha256: source.specSha256 },
    namespace: namespace.name,
    traceId,
    settings: source.settings,
    start: { source: store.base ?? store.source ?? null, pets: [...(await startPets(store, source, namespaces))] },
    now: { pets: [...pets] },
    clock: { ...clock.toJSON(), offsetMs: clock.real ? 0 : clock.nowMs() - Date.now() },
    faults: namespace.faults.list().map((fault) => ({ ...fault, hits: [...fault.hits] })),
    journal: {
      dropped: journal.tally.journalDropped,
      entries: journal.find(traceId === null ? {} : { traceId }),
    },
  }
}

/** The pets of the namespace's last reset: its frozen pets, else (held as its own) those of its baseline. */
async function startPets(
  store: AnimalStore,
  { frozenPets }: BundleSource,
  namespaces: Namespaces,
): Promise<readonly Pet[]> {
  const pets = store.all()
  if (store.base !== undefined) return pets.slice(0, pets.length - store.own.length)
  // A data file of the user's own has no source: where its pets came from is not known.
  if (store.source === undefined) return []
  if (store.source.kind !== 'snapshot') return (await frozenPets(store.source)).pets
  // A snapshot another replica made is read from the database first.
  if (namespaces.snapshots.frozenPets(store.source) === undefined) await namespaces.snapshots.refresh()
  return namespaces.snapshots.frozenPets(store.source)?.pets ?? []
}
