// The conformance runner: every case of cases.ts through Prism in front of a deployment of the API,
// over HTTP/1.1, HTTPS/1.1 or HTTP/2, every violation Prism reports collected, and the coverage guard.
import { createRequire } from 'node:module'
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SPEC_FILE } from '../src/paths.js'
import { CASES, type Auth, type ConformanceCase } from './cases.js'
import { keyOf, loadContract, type Answer as ContractAnswer, type Contract, type ResponseKey } from './contract.js'
import { startPrism, type RunningPrism } from './prism.js'
import { startRelay } from './relay.js'

const REQUEST_TIMEOUT_MS = 15_000
const UNKNOWN_KEY = 'conformance-unknown-key'
const UNDOCUMENTED_STATUS = /^Unable to match the returned status code/

/** How the requests reach the deployment, by the names `--protocol` takes. */
export const PROTOCOLS = { http1: 'HTTP/1.1', https: 'HTTPS/1.1', h2: 'HTTP/2' } as const
export type Protocol = keyof typeof PROTOCOLS

export interface ConformanceOptions {
  /** The API's base URL, e.g. http://127.0.0.1:4010/v1 */
  readonly baseUrl: string
  /** A key the deployment accepts. */
  readonly apiKey: string
  readonly cases?: readonly ConformanceCase[]
  /**
   * Also run the cases where the sandbox is stricter than the interface (statuses the spec does not
   * list); turn off against a deployment that is not this sandbox.
   */
  readonly beyondContract?: boolean
  /**
   * `http1` in the clear, `https` (HTTP/1.1 over TLS) or `h2` (HTTP/2 over TLS); by default, the
   * base URL's scheme says: `http1` for http://, `https` for https://.
   */
  readonly protocol?: Protocol
  /** Over TLS, the PEM of the one CA to trust (the sandbox's, for TLS=auto); Node's own roots without it. */
  readonly ca?: string
}

/** One entry of Prism's sl-violations header. */
interface Violation {
  readonly location: readonly string[]
  readonly severity: string
  readonly message: string
}

export interface CaseResult {
  readonly case: ConformanceCase
  /** How the request travelled. */
  readonly via: 'prism --errors' | 'prism' | 'direct'
  readonly status: number | undefined
  /** Everything that does not conform, Prism's violations included; empty when the case passed. */
  readonly problems: readonly string[]
  /** The documented response the sandbox's answer falls under, if any. */
  readonly exercised: ResponseKey | undefined
}

export interface ConformanceReport {
  readonly ok: boolean
  readonly results: readonly CaseResult[]
  /** The documented responses no case exercised. */
  readonly missing: readonly ResponseKey[]
  /** A printable summary: every case, the operations and statuses checked, the coverage. */
  readonly summary: string
}

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const specFile = fileURLToPath(SPEC_FILE)
  const cases = (options.cases ?? CASES).filter((c) => options.beyondContract !== false || !c.beyondContract)
  const judge = await loadContract()
  const protocol = options.protocol ?? (baseUrl.startsWith('https:') ? 'https' : 'http1')
  if (baseUrl.startsWith('https:') !== (protocol !== 'http1'))
    throw new Error(
      `${PROTOCOLS[protocol]} needs ${protocol === 'http1' ? 'an http' : 'an https'}:// URL, not ${baseUrl}`,
    )
  // Over TLS, Prism and the direct cases reach the deployment through the relay (relay.ts says why).
  const relay = protocol === 'http1' ? undefined : await startRelay(baseUrl, protocol, options.ca)
  const upstream = relay?.baseUrl ?? baseUrl

  // Valid requests go through a proxy with --errors, so any response violation turns into Prism's
  // own 500; invalid ones need a proxy without it, or Prism would answer them instead of the sandbox.
  const started = await Promise.allSettled([
    startPrism({ spec: specFile, upstream, errors: true }),
    startPrism({ spec: specFile, upstream, errors: false }),
  ])
  const proxies = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
  try {
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected')
    if (failed) throw failed.reason
    const [strict, lenient] = proxies as [RunningPrism, RunningPrism]
    const context: RunContext = { upstream, apiKey: options.apiKey, strict, lenient, judge, createdId: undefined }
    const results: CaseResult[] = []
    for (const testCase of cases) results.push(await runCase(testCase, context))

    const exercised = new Set(results.flatMap((r) => (r.exercised ? [keyOf(r.exercised)] : [])))
    const missing = judge.documented.filter((key) => !exercised.has(keyOf(key)))
    return {
      ok: missing.length === 0 && results.every((r) => r.problems.length === 0),
      results,
      missing,
      summary: summarise(`${baseUrl} over ${PROTOCOLS[protocol]}`, specFile, results, judge.documented, missing),
    }
  } finally {
    await Promise.all([...proxies.map((p) => p.stop()), relay?.close()])
  }
}

interface RunContext {
  /** Where Prism forwards to and direct cases go: the deployment's base URL, or the relay's to it. */
  readonly upstream: string
  readonly apiKey: string
  readonly strict: RunningPrism
  readonly lenient: RunningPrism
  readonly judge: Contract
  /** The id of the first pet a 201 case created, for `{created}` paths. */
  createdId: number | undefined
}

interface Answer extends ContractAnswer {
  readonly headers: Headers
  readonly text: string
}

async function runCase(testCase: ConformanceCase, context: RunContext): Promise<CaseResult> {
  const via = routeOf(testCase)
  const result = (status: number | undefined, problems: string[]): CaseResult => ({
    case: testCase,
    via,
    status,
    problems,
    exercised: undefined,
  })
  if (testCase.request.path.includes('{created}') && context.createdId === undefined)
    return result(undefined, ['no earlier case created a pet to fetch'])
  const path = testCase.request.path.replace('{created}', String(context.createdId))
  const { judge } = context
  const problems: string[] = []
  let answer: Answer
  try {
    const proxy = { 'prism --errors': context.strict.url, prism: context.lenient.url }[via as string]
    answer = await send((proxy ?? context.upstream) + path, testCase, context.apiKey)
    if (proxy)
      problems.push(...judgeViolations(testCase, responseViolations(answer.headers)), ...prismOwnAnswer(answer))
  } catch (error) {
    return result(undefined, [`the request failed: ${(error as Error).message}`])
  }

  if (answer.status !== testCase.status)
    problems.push(`expected status ${testCase.status}, got ${answer.status}: ${answer.text.slice(0, 300)}`)
  // Prism checks bodies of documented statuses; every error the sandbox sends must carry the
  // Error body, documented or not (and Prism cannot judge the direct 501), so errors are checked here.
  const fromPrism = isPrismProblem(answer)
  if (answer.status >= 400 && !fromPrism) {
    const { status, contentType, text: body } = answer
    problems.push(...judge.check(testCase.operationId, { status, contentType, body }))
  }
  const extra = testCase.check?.(answer.body, answer.headers)
  if (extra) problems.push(extra)

  const id = (answer.body as { id?: unknown } | undefined)?.id
  if (testCase.operationId === 'createPet' && answer.status === 201 && typeof id === 'number') context.createdId ??= id
  const exercised = fromPrism ? undefined : judge.responseKeyFor(testCase.operationId, answer.status)
  return { ...result(answer.status, problems), exercised }
}

/**
 * Valid requests (an expected status below 400) go through the proxy with --errors, invalid ones
 * through the proxy without it: with --errors Prism would answer them itself.
 */
function routeOf(testCase: ConformanceCase): CaseResult['via'] {
  if (testCase.route === 'direct') return 'direct'
  return testCase.status < 400 && testCase.route !== 'lenient' ? 'prism --errors' : 'prism'
}

const AUTHORIZATION: Record<Auth, (apiKey: string) => string | undefined> = {
  key: (apiKey) => `Bearer ${apiKey}`,
  'lower-case-scheme': (apiKey) => `bearer ${apiKey}`,
  'unknown-key': () => `Bearer ${UNKNOWN_KEY}`,
  basic: (apiKey) => `Basic ${Buffer.from(`user:${apiKey}`).toString('base64')}`,
  none: () => undefined,
}

async function send(url: string, { request }: ConformanceCase, apiKey: string): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' }
  const authorization = AUTHORIZATION[request.auth ?? 'key'](apiKey)
  if (authorization) headers['authorization'] = authorization
  const body = request.raw ?? (request.json === undefined ? undefined : JSON.stringify(request.json))
  if (body !== undefined) headers['content-type'] = request.contentType ?? 'application/json'
  if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey
  const res = await fetch(url, {
    method: request.method,
    headers,
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  })
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // Not JSON: the text itself is judged.
  }
  const contentType = res.headers.get('content-type') ?? undefined
  return { status: res.status, headers: res.headers, contentType, body: parsed, text }
}

/** The response-located entries of Prism's sl-violations header. */
function responseViolations(headers: Headers): Violation[] {
  const header = headers.get('sl-violations')
  if (!header) return []
  try {
    return (JSON.parse(header) as Violation[]).filter((v) => v.location[0] === 'response')
  } catch {
    // Prism truncates a long list ("Too many violations! …"): keep it whole, as one violation.
    return [{ location: ['response'], severity: 'Error', message: header }]
  }
}

/** Any response violation fails a case, except the one a beyond-contract case expects. */
function judgeViolations(testCase: ConformanceCase, violations: readonly Violation[]): string[] {
  const expected = (v: Violation): boolean => testCase.beyondContract === true && UNDOCUMENTED_STATUS.test(v.message)
  const problems = violations
    .filter((v) => !expected(v))
    .map((v) => `Prism: ${v.severity} at ${v.location.join('.')}: ${v.message}`)
  if (testCase.beyondContract && !violations.some(expected)) {
    problems.push(
      `Prism did not flag status ${testCase.status} as undocumented: the spec lists it now, so this case is no longer beyond the contract`,
    )
  }
  return problems
}

/** Prism's own answers are problem+json (a 500 VIOLATIONS with --errors, a 401/422 for a request it refused). */
function isPrismProblem(answer: Answer): boolean {
  return /^application\/problem\+json/i.test(answer.headers.get('content-type') ?? '')
}

function prismOwnAnswer(answer: Answer): string[] {
  if (!isPrismProblem(answer)) return []
  const problem = answer.body as { title?: string; detail?: string; validation?: Violation[] }
  const listed = (problem.validation ?? [])
    .map((v) => `\n    ${v.severity} at ${v.location.join('.')}: ${v.message}`)
    .join('')
  return [
    `Prism answered ${answer.status} itself: ${problem.title ?? answer.text}${problem.detail ? ` (${problem.detail})` : ''}${listed}`,
  ]
}

function summarise(
  /** The deployment and the protocol: "https://127.0.0.1:4010/v1 over HTTP/2". */
  target: string,
  specFile: string,
  results: readonly CaseResult[],
  documented: readonly ResponseKey[],
  missing: readonly ResponseKey[],
): string {
  const require = createRequire(import.meta.url)
  const prismVersion = (require('@stoplight/prism-cli/package.json') as { version: string }).version
  const lines = [
    `Conformance of ${target} against ${relative(process.cwd(), specFile)}, judged by Prism ${prismVersion}`,
    '',
  ]
  for (const r of results) {
    const label = `${r.case.operationId} ${r.case.status}`.padEnd(16)
    lines.push(
      `${r.problems.length === 0 ? 'PASS' : 'FAIL'}  ${label} ${r.case.intent}  [${r.via}]${r.case.beyondContract ? ' (beyond the contract)' : ''}`,
    )
    for (const problem of r.problems) lines.push(`        ${problem}`)
  }
  lines.push('', 'Operations and statuses checked:')
  const byOperation = new Map<string, Map<string, number>>()
  for (const r of results) {
    const statuses = byOperation.get(r.case.operationId) ?? new Map<string, number>()
    const key = r.exercised
      ? r.exercised.response === String(r.status)
        ? String(r.status)
        : `${r.status} (as ${r.exercised.response})`
      : `${r.status ?? 'none'} (undocumented)`
    statuses.set(key, (statuses.get(key) ?? 0) + 1)
    byOperation.set(r.case.operationId, statuses)
  }
  for (const [operationId, statuses] of byOperation) {
    lines.push(
      `  ${operationId.padEnd(12)} ${[...statuses].map(([status, count]) => `${status} ×${count}`).join(', ')}`,
    )
  }
  lines.push(
    '',
    `Coverage: ${documented.length - missing.length} of ${documented.length} documented responses exercised` +
      (missing.length > 0 ? `; never exercised: ${missing.map(keyOf).join(', ')}` : ''),
  )
  const failed = results.filter((r) => r.problems.length > 0).length
  lines.push(`${results.length} cases: ${results.length - failed} passed, ${failed} failed`)
  return lines.join('\n')
}
