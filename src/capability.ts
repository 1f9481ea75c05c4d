// A capability: a part the sandbox can do without (telemetry, TLS, fidelity, MCP, Pact, the
// explorer), registered as a Fastify plugin or a WireMock extension is. Each is a folder of src/
// exporting a factory from its settings (a part of src/settings.ts) to one such object;
// src/sandbox.ts builds the list, and the app knows none of them by name.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Polka } from 'polka'
import type { ControlPart } from './control/control-operation.js'
import type { Exchange } from './http/exchange.js'

/** Serves a request it was given; an error it cannot answer itself goes to `answerError`. */
export type Endpoint = (req: IncomingMessage, res: ServerResponse, answerError: (error: unknown) => void) => void

/** Its name, and what it brings to the control API: its operations and what a reset tells it. */
export interface Capability extends ControlPart {
  /** What it does to requests on their way: each hook runs in the order of the capabilities' list. */
  readonly hooks?: RequestHooks | undefined
  /** What it serves beside the APIs. */
  readonly routes?: Routes | undefined
  /** Called as the sandbox stops, once no request is in flight, in the list's order. */
  readonly close?: (() => Promise<void>) | undefined
}

export interface RequestHooks {
  /** Every request as it arrives, before anything answers it (a span starts here). */
  readonly arrive?: ((exchange: Exchange) => void) | undefined
  /** Every request to the API, once test control has tracked it and before its operation runs. */
  readonly api?: ((exchange: Exchange) => void) | undefined
  /** The API operations it answers in place of the store (pass-through), once the namespace is known. */
  readonly answers?: ((operationId: string) => boolean) | undefined
  readonly answer?: ((operationId: string, exchange: Exchange) => Promise<undefined>) | undefined
}

export interface Routes {
  /** Pages on the router of every path outside the APIs. */
  readonly pages?: ((router: Polka) => void) | undefined
  /** Documents under the API's base path; the API's operations come first. */
  readonly api?: ((router: Polka) => void) | undefined
  /** Pages among its own that show test data: reached as the control API is (its origins and Host names). */
  readonly testData?: readonly string[] | undefined
  /** Paths it serves behind the control API's guard (its token, origins and Host names), each with all below it. */
  readonly guarded?: Readonly<Record<string, Endpoint>> | undefined
}
