// What a control API handler (/__admin, spec/admin.openapi.yaml) is given and answers with. The
// core's rooms and the capabilities each bring theirs, keyed by operationId; control-api.ts
// merges them and runs each in the namespace `?namespace=` names.
import type { operations } from '../contract/admin-types.js'
import type { ApiSpec, SpecOperations } from '../contract/types.js'
import { ERRORS, HttpError } from '../http/errors.js'
import type { Exchange } from '../http/exchange.js'
import type { Reply } from '../http/reply.js'
import type { HandlersOf } from '../pipeline/pipeline.js'
import type { BundleSource } from './bundle.js'
import type { Namespace, Namespaces } from '../namespaces/namespaces.js'

export interface ControlApiOptions {
  /** The control API's spec, loaded once, when the control API is built (control-api.ts). */
  readonly controlSpec: () => Promise<SpecOperations>
  readonly apiSpec: ApiSpec
  readonly token: string
  /** The token is the published default: it is accepted only over loopback, from this machine. */
  readonly localOnly: boolean
  readonly namespaces: Namespaces
  /** What getBundle says of the sandbox, and how it cuts secrets and reads the initial data. */
  readonly bundle?: BundleSource | undefined
  /** NAMESPACE_FROM_TRACE: a call naming no namespace goes to its trace's. */
  readonly namespaceFromTrace?: boolean | undefined
}

export interface ControlContext extends ControlApiOptions {
  readonly namespace: Namespace
  /** Tells the capabilities that a namespace was reset (reset's handler calls it once done). */
  readonly afterReset: (namespace: Namespace) => void
  /** The control call's own exchange: a wait ends when its connection closes. */
  readonly exchange: Exchange
}

/** Handlers of some of the control API's operations, typed from the generated admin types. */
export type ControlOperations = Partial<HandlersOf<operations, ControlContext>>

/** What a part of the sandbox brings to the control API: every capability is one (src/capability.ts). */
export interface ControlPart {
  /** Its name, as its folder has it: a start that finds an operation handled twice names both. */
  readonly name: string
  /** Its operations of the control API (spec/admin.openapi.yaml): each has one handler, its room's. */
  readonly controlOperations?: ControlOperations | undefined
  /** Called once the control API has reset a namespace: what it keeps of that namespace is forgotten. */
  readonly reset?: ((namespace: Namespace) => void) | undefined
}

export function ok(body: unknown): Reply {
  return { status: 200, body }
}

export function invalidBody(problem: string): HttpError {
  return new HttpError(ERRORS.invalidBody, `Invalid request body: ${problem}`)
}

export function operationIds(spec: ApiSpec): string[] {
  return spec.operations.map((op) => op.operationId)
}

export function unknownNamespace(name: string): HttpError {
  return new HttpError(
    ERRORS.notFound,
    `No namespace ${JSON.stringify(name)}: reading or clearing never creates one (a reset, a replace, a fault, a clock or an API request naming it does)`,
  )
}
