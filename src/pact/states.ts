// Provider states: the data a namespace started from (what a reset restores) or a pet an interaction
// needs. Params repeat the name in fields; a state written by hand with its name alone works too.
import type { Baseline } from '../store/baseline.js'

export interface ProviderState {
  readonly name: string
  readonly params: Record<string, unknown>
}

/** What a state asks of the namespace under verification. */
export type StateChange =
  | { readonly reset: { readonly seed: number; readonly count: number } | { readonly snapshot: string } | null }
  | { readonly petExists: number }

export const INITIAL_DATA = 'the initial data'

/** The state of a namespace's data: its store's baseline (a seed, a snapshot), else the initial data. */
export function dataState(source: Baseline | undefined): ProviderState {
  if (source?.kind === 'seed') {
    const { seed, count } = source
    return { name: `pets from seed ${seed} (${count} pets)`, params: { seed, count } }
  }
  if (source?.kind === 'snapshot')
    return { name: `pets of snapshot ${JSON.stringify(source.name)}`, params: { snapshot: source.name } }
  return { name: INITIAL_DATA, params: {} }
}

/** An interaction that read a pet by its id needs that pet, whatever the data it starts from. */
export function petState(id: number): ProviderState {
  return { name: `a pet with id ${id}`, params: { id } }
}

const SEED_STATE = /^pets from seed (\d+) \((\d+) pets\)$/
const SNAPSHOT_STATE = /^pets of snapshot "(.+)"$/
const PET_STATE = /^a pet with id (\d+)$/

/** The change a state asks for, from its params or else its name; undefined for a state the sandbox does not know. */
export function stateChange(name: string, params: Record<string, unknown> = {}): StateChange | undefined {
  const integer = (value: unknown): number | undefined =>
    Number.isSafeInteger(Number(value)) && value !== null && value !== '' ? Number(value) : undefined
  const seed = integer(params['seed']) ?? integer(SEED_STATE.exec(name)?.[1])
  const count = integer(params['count']) ?? integer(SEED_STATE.exec(name)?.[2])
  if (seed !== undefined && count !== undefined) return { reset: { seed, count } }
  const snapshot = typeof params['snapshot'] === 'string' ? params['snapshot'] : SNAPSHOT_STATE.exec(name)?.[1]
  if (snapshot !== undefined) return { reset: { snapshot } }
  const id = integer(params['id']) ?? integer(PET_STATE.exec(name)?.[1])
  if (id !== undefined) return { petExists: id }
  if (name === INITIAL_DATA) return { reset: null }
  return undefined
}
