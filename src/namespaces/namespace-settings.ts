// The namespaces' part of the settings table (src/settings.ts): how many are kept in memory, how
// many one API key may make, and how a request names one besides X-Sandbox-Namespace.
import * as read from '../setting-readers.js'
import { accepting, fail, quoted, setting, type Reader } from '../setting-readers.js'
import { NAMESPACE_NAME } from './namespace-choice.js'

export const MAX_MAX_NAMESPACES = 10_000
/** A quota larger than any sandbox holds is no quota: the bound only catches a typo. */
const MAX_NAMESPACES_PER_KEY = 1_000_000
const none = undefined as string | undefined

/** A snapshot's name, not the snapshot: it may be made after the start (each request checks). */
const snapshotName: Reader<string> = accepting({ type: 'string', pattern: NAMESPACE_NAME.source }, (value, name) =>
  NAMESPACE_NAME.test(value)
    ? value
    : fail(
        `${name} must be a snapshot's name: 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit, got ${quoted(value)}`,
      ),
)

export const NAMESPACE_SETTINGS = {
  maxNamespaces: setting({
    default: 100,
    parse: read.whole(1, MAX_MAX_NAMESPACES),
    help: 'namespaces kept in memory at once; past it, the least recently used that holds nothing a test gave it is evicted, else (with `DATA_FILE`) the least recently used whose data is all in its files is unloaded and read back at its next use; a new one is refused with `503 namespace_limit` only when none can go',
    see: ['the rule', 'docs/control-api.md#namespaces-for-parallel-tests'],
  }),
  namespacesPerKey: setting({
    sameRow: true,
    default: undefined as number | undefined,
    shown: 'no quota',
    parse: read.whole(1, MAX_NAMESPACES_PER_KEY),
    help: 'namespaces one API key may have made and not deleted (the keys of `NAMESPACE_KEY_PREFIX` count as one); past it, a request that would make another is refused with `503 namespace_limit`. The default namespace and those the control API makes count against no key',
    see: ['the quota', 'docs/deploy.md#keeping-a-long-lived-sandbox-tidy'],
  }),
  namespaceKeyPrefix: setting({
    default: none,
    shown: 'off',
    parse: read.token,
    help: 'accept every API key `<prefix><name>`, each with its own namespace `<name>`',
    see: ['namespaces', 'docs/control-api.md#namespaces-for-parallel-tests'],
  }),
  namespaceFromTrace: setting({
    sameRow: true,
    flagMeans: 'on',
    default: false,
    shown: 'off',
    parse: read.either('on', 'off'),
    help: 'a request that names no namespace but carries a W3C `traceparent` works in the namespace named after its trace id',
  }),
  traceNamespaceBaseline: setting({
    sameRow: true,
    default: none,
    shown: 'the initial data',
    parse: snapshotName,
    help: "the snapshot a trace's namespace starts from (`503 baseline_missing` until it exists); with `NAMESPACE_FROM_TRACE=on` only",
  }),
}
