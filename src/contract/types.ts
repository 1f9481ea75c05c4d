// What the project's OpenAPI documents become once loaded: operations with their validators,
// for the pipeline, the store and the control API. Loaded from YAML (load.ts) or from a build's
// precompiled module (compiled.ts).
import type { ValidateFunction } from 'ajv/dist/2020.js'

export type JsonSchema = Record<string, unknown>

export interface ParameterSpec {
  readonly name: string
  readonly in: 'query' | 'path' | 'header' | 'cookie'
  readonly required: boolean
  readonly schema: JsonSchema
}

/** An operation's maturity (x-stability), least stable first; an operation without the marker is stable. */
export const STABILITIES = ['experimental', 'beta', 'stable'] as const
export type Stability = (typeof STABILITIES)[number]

export interface Operation {
  readonly operationId: string
  readonly method: string
  /** The path as the spec writes it, e.g. /pets/{petId}. */
  readonly path: string
  readonly secured: boolean
  readonly deprecated: boolean
  /** When a deprecated operation was deprecated (x-deprecated-since). */
  readonly deprecatedSince: Date | undefined
  /** The removal date of a deprecated operation (x-sunset). */
  readonly sunset: Date | undefined
  /** Where clients should go instead (x-replacement), relative to the base path. */
  readonly replacement: string | undefined
  /** x-stability: experimental or beta; stable when the spec gives none. */
  readonly stability: Stability
  readonly parameters: readonly ParameterSpec[]
  readonly validateQuery: ValidateFunction | undefined
  readonly validatePath: ValidateFunction | undefined
  readonly validateHeader: ValidateFunction | undefined
  readonly requestBody: { readonly required: boolean; readonly validate: ValidateFunction } | undefined
  readonly responses: readonly string[]
}

/** What serving a spec's operations takes: where they live, and each with its validators. */
export interface SpecOperations {
  /** The path segment every server URL ends with, e.g. /v1 (or /__admin for the control API). */
  readonly basePath: string
  readonly operations: readonly Operation[]
}

/** Any OpenAPI document of this project, with its operations compiled. */
export interface SpecFile extends SpecOperations {
  readonly document: Record<string, unknown>
  readonly schemas: Readonly<Record<string, JsonSchema>>
}

/** The user's contract, with the validators the store needs. */
export interface ApiSpec extends SpecFile {
  readonly validatePet: ValidateFunction
  readonly validatePets: ValidateFunction
}
