// The fidelity capability (UPSTREAM): in compare mode each API request is sent on to the
// upstream once the sandbox has answered it; in record mode, and for what the sandbox does not
// implement, the upstream answers in the store's place. Without UPSTREAM it only answers the
// control API's getDrift, saying that it is off.
import type { Capability } from '../capability.js'
import { ok } from '../control/control-operation.js'
import { DriftLog } from './drift.js'
import { Fidelity, type FidelityOptions } from './fidelity.js'

export function fidelity(options: FidelityOptions | undefined): Capability {
  if (options === undefined)
    return {
      name: 'fidelity',
      controlOperations: {
        getDrift: (_input, { namespace }) => ok(new DriftLog().report(namespace.name, null, 'off')),
      },
    }
  const upstream = new Fidelity(options)
  return {
    name: 'fidelity',
    hooks: {
      api: upstream.compares ? (exchange) => upstream.observe(exchange) : undefined,
      answers: (operationId) => upstream.answers(operationId),
      answer: (operationId, exchange) => upstream.proxy(operationId, exchange),
    },
    controlOperations: {
      async getDrift(_input, { namespace }) {
        // Waits for the comparisons under way, within the bound of one upstream answer.
        const bound = new Promise((resolve) => setTimeout(resolve, upstream.timeoutMs))
        await Promise.race([upstream.settled(namespace), bound])
        return ok(upstream.report(namespace))
      },
    },
    // A reset forgets the namespace's drift and the ids each side gave.
    reset: (namespace) => upstream.clear(namespace),
  }
}
