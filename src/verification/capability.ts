// The verification capability: what a test asks of the request journal through the control API.
// Its calls and the coverage report (journal-operations.ts); verify, the wait for the calls it
// expects, the stray calls and the end of a test (verification-operations.ts).
import type { Capability } from '../capability.js'
import { journalHandlers } from './journal-operations.js'
import { verificationHandlers } from './verification-operations.js'

export function verification(): Capability {
  return { name: 'verification', controlOperations: { ...journalHandlers, ...verificationHandlers } }
}
