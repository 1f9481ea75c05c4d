// The operations of a spec by path, built once at start: a request's path gives the operations
// served there and its path parameters, with one regular expression per path of the spec.
import type { Operation } from '../contract/types.js'

export interface OperationPath {
  /** The path as the spec writes it, e.g. /pets/{petId}. */
  readonly template: string
  /** The operations served at this path, by HTTP method. */
  readonly byMethod: ReadonlyMap<string, Operation>
  /** The Allow header of a 405 at this path. */
  readonly allow: string
}

export interface PathMatch {
  readonly at: OperationPath
  /** Path parameters by name, percent-decoded. */
  readonly params: ReadonlyMap<string, string>
}

interface CompiledPath extends OperationPath {
  readonly pattern: RegExp
  readonly names: readonly string[]
}

const NO_PARAMS: ReadonlyMap<string, string> = new Map()

export class OperationRoutes {
  readonly paths: readonly OperationPath[]
  readonly #compiled: readonly CompiledPath[]

  constructor(operations: readonly Operation[], basePath: string) {
    const byPath = new Map<string, Map<string, Operation>>()
    for (const op of operations)
      byPath.set(op.path, (byPath.get(op.path) ?? new Map<string, Operation>()).set(op.method, op))
    this.#compiled = [...byPath].map(([template, byMethod]) => ({
      template,
      byMethod,
      // HTTP requires HEAD wherever GET is served (the pipeline serves it as GET without the body).
      allow: [...byMethod.keys(), ...(byMethod.has('GET') ? ['HEAD'] : [])].join(', '),
      ...compileTemplate(basePath + template),
    }))
    this.paths = this.#compiled
  }

  /**
   * The operations served at `pathname`, or undefined when there are none. Paths match exactly, in
   * their case (a client that sends /V1/PETS must find its bug here rather than in production);
   * one trailing slash is tolerated, as polka does.
   */
  match(pathname: string): PathMatch | undefined {
    for (const path of this.#compiled) {
      const found = path.pattern.exec(pathname)
      if (found === null) continue
      if (path.names.length === 0) return { at: path, params: NO_PARAMS }
      const params = new Map<string, string>()
      path.names.forEach((name, i) => params.set(name, decodeSegment(found[i + 1] as string)))
      return { at: path, params }
    }
    return undefined
  }
}

function compileTemplate(template: string): { pattern: RegExp; names: string[] } {
  const names: string[] = []
  const escaped = template.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const source = escaped.replace(/\\\{([^}\\]+)\\\}/g, (_, name: string) => {
    names.push(name)
    return '([^/]+)'
  })
  return { pattern: new RegExp(`^${source}/?$`), names }
}

/** A path segment, percent-decoded; as polka does, a malformed escape leaves it as sent. */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}
