// A quota of namespaces per API key (NAMESPACES_PER_KEY): many teams' CI jobs share one long-lived
// sandbox, each with its own key, and one runaway job must not fill its memory, disk or database
// for the others. A namespace counts against the key of the request that made it, kept as the
// key's hash (a key is a secret); the default namespace and those the control API makes (its admin
// token is the operator's) count against none. Here, the count of one process (memory, the data
// file); PostgreSQL counts in the database (src/shared).
import { createHash } from 'node:crypto'
import type { Logger } from 'pino'
import { ERRORS, HttpError, RETRY_AFTER } from '../http/errors.js'
import { namespaceOfKey } from './namespace-choice.js'
import { ownersFileOf } from '../store/files.js'
import { OwnersFile } from '../store/owners-file.js'
import type { Stores } from '../store/stores.js'

/** Who the quota counts against: the keys of NAMESPACE_KEY_PREFIX's family (`keyPrefix`) as one. */
export interface QuotaRule {
  readonly perKey: number
  readonly keyPrefix: string | undefined
}

/**
 * What a namespace made with `key` counts against: the key's hash, never the key; undefined with no
 * quota. A key of the prefix's family counts as the family: anyone who holds the prefix can make
 * new keys of it, each naming a namespace of its own, so a quota per key of it would bound nothing.
 */
export function ownerOf(key: string | undefined, rule: QuotaRule | undefined): string | undefined {
  if (rule === undefined || key === undefined) return undefined
  const { keyPrefix } = rule
  const counted = keyPrefix !== undefined && namespaceOfKey(key, keyPrefix) !== undefined ? keyPrefix : key
  return createHash('sha256').update(counted).digest('base64url')
}

/** The answer to a request that would make a namespace past its key's quota: nothing was made. */
export function quotaReached(name: string, perKey: number): HttpError {
  return new HttpError(
    ERRORS.namespaceLimit,
    `No room for namespace ${JSON.stringify(name)}: this API key has made ${perKey} namespaces (NAMESPACES_PER_KEY); delete one it no longer needs (DELETE /__admin/namespaces/{name}), then try again`,
    RETRY_AFTER,
  )
}

export class NamespaceQuota {
  readonly perKey: number
  /** The owner of each counted namespace, by name. */
  readonly #owners: Map<string, string>
  readonly #counts = new Map<string, number>()
  readonly #file: OwnersFile | undefined

  /**
   * The quota (none without `perKey`), with the owners of the namespaces on disk read back from
   * beside `dataFile`; those not on disk any more (never written, or deleted) count no more.
   */
  static async open(
    perKey: number | undefined,
    dataFile: string | undefined,
    stores: Pick<Stores, 'namespacesOnDisk'>,
    logger: Pick<Logger, 'warn'>,
  ): Promise<NamespaceQuota | undefined> {
    if (perKey === undefined) return undefined
    const file = dataFile === undefined ? undefined : new OwnersFile(ownersFileOf(dataFile), logger)
    const read = (await file?.read()) ?? new Map<string, string>()
    const owners = new Map([...read].filter(([name]) => stores.namespacesOnDisk.has(name)))
    return new NamespaceQuota(perKey, owners, file)
  }

  private constructor(perKey: number, owners: Map<string, string>, file: OwnersFile | undefined) {
    this.perKey = perKey
    this.#owners = owners
    this.#file = file
    for (const owner of owners.values()) this.#counts.set(owner, (this.#counts.get(owner) ?? 0) + 1)
  }

  /** Counts the new namespace `name` against `owner`, or refuses it (a 503 namespace_limit); false: counted already. */
  claim(name: string, owner: string): boolean {
    if (this.#owners.has(name)) return false
    const count = this.#counts.get(owner) ?? 0
    if (count >= this.perKey) throw quotaReached(name, this.perKey)
    this.#counts.set(owner, count + 1)
    this.#owners.set(name, owner)
    this.#file?.write(this.#owners)
    return true
  }

  /** `name` is gone (deleted, or evicted holding nothing): its room goes back to its owner. */
  release(name: string): void {
    const owner = this.#owners.get(name)
    if (owner === undefined) return
    this.#owners.delete(name)
    const count = (this.#counts.get(owner) ?? 1) - 1
    if (count > 0) this.#counts.set(owner, count)
    else this.#counts.delete(owner)
    this.#file?.write(this.#owners)
  }

  /** Resolves once the owners counted so far are on disk (at once without a data file); rejects when the disk refused. */
  durable(): Promise<void> {
    return this.#file?.durable() ?? Promise.resolve()
  }
}
