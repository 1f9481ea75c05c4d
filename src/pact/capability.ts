// The Pact capability: the control API's exportPact, a namespace's journal as a Pact.
import type { Capability } from '../capability.js'
import { ok } from '../control/control-operation.js'
import { pactOf } from './export.js'
import { dataState } from './states.js'

export function pact(): Capability {
  return {
    name: 'pact',
    controlOperations: {
      async exportPact({ query }, { namespace, apiSpec }) {
        // The data it started from: a seed's or snapshot's frozen pets, else its data file's baseline.
        const store = await namespace.store()
        const info = apiSpec.document['info'] as { title?: string } | undefined
        return ok(
          pactOf(apiSpec, {
            consumer: query.consumer ?? namespace.name,
            provider: query.provider ?? info?.title ?? 'provider',
            namespace: namespace.name,
            entries: namespace.journal.find(),
            dropped: namespace.journal.tally.journalDropped,
            state: dataState(store.base ?? store.source),
          }),
        )
      },
    },
  }
}
