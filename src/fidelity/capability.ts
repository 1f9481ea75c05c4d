// The fidelity capability (UPSTREAM): in compare mode each API request is sent on to the
// upstream once the sandbox has answered it; in record mode, and for what the sandbox does not
// implement, the upstream answers in the store's place.
import type { Capability } from '../capability.js'
import { Fidelity, type FidelityOptions } from './fidelity.js'

export interface FidelityCapability extends Capability {
  /** What the control API reads (getDrift) and a reset clears: each namespace's drift. */
  readonly fidelity: Fidelity
}

export function fidelity(options: FidelityOptions): FidelityCapability {
  const upstream = new Fidelity(options)
  return {
    name: 'fidelity',
    fidelity: upstream,
    hooks: {
      api: upstream.compares ? (exchange) => upstream.observe(exchange) : undefined,
      answers: (operationId) => upstream.answers(operationId),
      answer: (operationId, exchange) => upstream.proxy(operationId, exchange),
    },
  }
}
