// Verification: each expectation counts the entries of its operation whose body and headers contain
// those given; a failed one names the closest entries, each difference by JSON Pointer. Strict mode
// makes every unmatched entry unexpected. The journal keeps the latest entries only: an expectation
// without body or headers is decided by the counts of every call; one that entries the journal
// dropped could decide is incomplete, and does not pass.
import type { components } from '../contract/admin-types.js'
import type { CoverageTally } from './coverage-tally.js'
import type { Journal, JournalEntry } from './request-journal.js'
import { escapeToken } from '../http/json-pointer.js'

type Schemas = components['schemas']
export type Expectation = Schemas['Expectation']
export type VerifyResult = Schemas['VerifyResult']
type ExpectationResult = Schemas['ExpectationResult']
type EntrySummary = Schemas['EntrySummary']
export type Difference = Schemas['Difference']

/** How many near misses a failed expectation names. */
const CLOSEST = 3

/** Beyond the entries kept: every call's counts (none for a trace) and the entries dropped. */
export interface CallCounts {
  readonly operations?: CoverageTally['operations']
  readonly journalDropped: number
}

/** What the spec's schema cannot say is wrong with the expectations, if anything. */
export function expectationProblem(expectations: readonly Expectation[], known: readonly string[]): string | undefined {
  for (const [i, { operationId, count, min, max }] of expectations.entries()) {
    if (!known.includes(operationId)) return `body.expectations.${i}.operationId must be one of: ${known.join(', ')}`
    if (count !== undefined && (min !== undefined || max !== undefined))
      return `body.expectations.${i} gives count with min or max: give count alone, or min and max`
    if ((min ?? 0) > (max ?? Infinity)) return `body.expectations.${i}.min is above its max`
  }
  return undefined
}

/** Verifies a namespace's journal, or the calls of one trace in it. */
export function verifyJournal(
  { name, journal }: { readonly name: string; readonly journal: Journal },
  traceId: string | undefined,
  expectations: readonly Expectation[],
  strict: boolean,
): VerifyResult {
  // The counts of every call do not tell traces apart: a trace's calls are the entries kept.
  const counts = traceId === undefined ? journal.tally : { journalDropped: journal.tally.journalDropped }
  return verify(name, journal.find({ traceId }), expectations, strict, counts)
}

export function verify(
  namespace: string,
  entries: readonly JournalEntry[],
  expectations: readonly Expectation[],
  strict: boolean,
  counts: CallCounts,
): VerifyResult {
  const matchedAny = new Set<number>()
  const results = expectations.map((expectation, index) => {
    const result = check(expectation, index, entries, counts)
    for (const id of result.matchedEntries) matchedAny.add(id)
    return result
  })
  const unexpected = strict ? entries.filter((entry) => !matchedAny.has(entry.id)).map(summary) : []
  const dropped = counts.journalDropped
  // The dropped entries may hold an unexpected call.
  const strictUndecided = strict && dropped > 0 && unexpected.length === 0
  const incomplete = strictUndecided || results.some((result) => result.incomplete)
  const passed = results.every((result) => result.passed) && unexpected.length === 0 && !incomplete
  const failures = [
    ...results.filter((result) => !result.passed).map((result) => result.message),
    ...unexpected.map((entry) => `unexpected call (strict): ${describe(entry)}`),
    ...(strictUndecided
      ? [`strict: undecided, the journal dropped ${dropped} entries, which may hold an unexpected call`]
      : []),
  ]
  if (incomplete)
    failures.push(
      `incomplete: the journal keeps the latest JOURNAL_SIZE entries and dropped ${dropped}; raise JOURNAL_SIZE, or clear the journal (DELETE /__admin/requests) or reset the namespace between tests`,
    )
  return {
    namespace,
    passed,
    incomplete,
    journalDropped: dropped,
    strict,
    checked: entries.length,
    expectations: results,
    unexpected,
    message: passed
      ? `passed: ${results.length} expectations met${strict ? ', no other call' : ''}`
      : `failed:\n${failures.map((line) => `- ${line.replace(/\n/g, '\n  ')}`).join('\n')}`,
  }
}

function check(
  expectation: Expectation,
  index: number,
  entries: readonly JournalEntry[],
  counts: CallCounts,
): ExpectationResult {
  const { operationId } = expectation
  const ofOperation = entries.filter((entry) => entry.operationId === operationId)
  const compared = ofOperation.map((entry) => ({ entry, differences: differencesOf(expectation, entry) }))
  const matched = compared.filter((c) => c.differences.length === 0).map((c) => c.entry)
  const { min, max, wanted } = bounds(expectation)
  const anyCall = expectation.body === undefined && expectation.headers === undefined
  const calls =
    counts.operations === undefined
      ? ofOperation.length + counts.journalDropped
      : (counts.operations.get(operationId)?.calls ?? ofOperation.length)
  // Every call matches an expectation without body or headers: the counts decide it. Otherwise the
  // dropped calls of its operation may match or not: undecided when that changes the outcome.
  const counted = anyCall && counts.operations !== undefined
  const found = counted ? Math.max(calls, matched.length) : matched.length
  const droppedOfOperation = counted ? 0 : Math.max(0, calls - ofOperation.length)
  const most = found + droppedOfOperation
  const passed = found >= min && most <= max
  const incomplete = !passed && found <= max && most >= min
  const closest = passed || found > max ? [] : nearest(compared)
  const what = `${operationId}${anyCall ? '' : ' with the body and headers given'}`
  let message = `${operationId}: expected ${wanted} call${wanted.endsWith(' 1') ? '' : 's'} of ${what}, found ${found}`
  if (incomplete)
    message +=
      counts.operations === undefined
        ? ` among the entries kept; undecided: the journal dropped ${droppedOfOperation} entries, which may be calls of ${operationId} that match`
        : ` among the entries kept; undecided: the journal dropped ${droppedOfOperation} calls of ${operationId}, which may match`
  if (!passed && !incomplete && found > max && matched.length > 0) message += `: ${matched.map(describe).join('; ')}`
  if (!passed && closest.length > 0) {
    message += `; closest:${closest
      .map((c) => `\n${describe(c.entry)}:\n${c.differences.map((d) => `  ${d.message}`).join('\n')}`)
      .join('')}`
  } else if (!passed && matched.length < min && calls === 0) {
    message += ` (no call of ${operationId} at all)`
  }
  return {
    index,
    operationId,
    passed,
    incomplete,
    expected: wanted,
    matched: found,
    matchedEntries: matched.map((entry) => entry.id),
    closest: closest.map((c) => ({ entry: summary(c.entry), differences: c.differences })),
    message,
  }
}

/** The fewest and most calls an expectation allows, and how it says so. */
export function bounds(expectation: Expectation): { min: number; max: number; wanted: string } {
  const { count, min, max } = expectation
  if (count !== undefined) return { min: count, max: count, wanted: `exactly ${count}` }
  if (min !== undefined && max !== undefined) return { min, max, wanted: `${min} to ${max}` }
  if (max !== undefined) return { min: 0, max, wanted: `at most ${max}` }
  return { min: min ?? 1, max: Infinity, wanted: `at least ${min ?? 1}` }
}

/** Fewest differences first; the latest first among equals (the call a test just made). */
function nearest<T extends { entry: JournalEntry; differences: Difference[] }>(compared: readonly T[]): T[] {
  return compared
    .filter((c) => c.differences.length > 0)
    .sort((a, b) => a.differences.length - b.differences.length || b.entry.id - a.entry.id)
    .slice(0, CLOSEST)
}

function differencesOf(expectation: Expectation, entry: JournalEntry): Difference[] {
  const body = expectation.body === undefined ? [] : subsetDifferences(expectation.body, entry.body)
  const headers = Object.entries(expectation.headers ?? {}).flatMap(([header, expected]) => {
    const pointer = header.toLowerCase()
    const actual = entry.headers[pointer]
    return actual === expected ? [] : [{ in: 'header' as const, pointer, expected, actual }]
  })
  return [...body.map((d) => ({ in: 'body' as const, ...d })), ...headers].map(({ actual, ...d }) => ({
    ...d,
    ...(actual === undefined ? {} : { actual }),
    message: `${entry.operationId} ${d.in} ${d.pointer || '(whole)'}: expected ${show(d.expected)}, got ${show(actual)}`,
  }))
}

export interface SubsetDifference {
  /** A JSON Pointer (RFC 6901) into the actual value; empty for the value itself. */
  readonly pointer: string
  readonly expected: unknown
  /** Undefined where the actual value has nothing. */
  readonly actual: unknown
}

/**
 * Where `actual` fails to contain `expected`: an object must have every property of the expected
 * one (others are allowed), an array the same length with each element contained, anything else
 * must be equal, type included (3 is not "3").
 */
export function subsetDifferences(expected: unknown, actual: unknown, pointer = ''): SubsetDifference[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return [{ pointer, expected, actual }]
    return expected.flatMap((item, i) => subsetDifferences(item, actual[i], `${pointer}/${i}`))
  }
  if (isObject(expected)) {
    if (!isObject(actual)) return [{ pointer, expected, actual }]
    return Object.entries(expected).flatMap(([key, value]) =>
      subsetDifferences(value, Object.hasOwn(actual, key) ? actual[key] : undefined, `${pointer}/${escapeToken(key)}`),
    )
  }
  return Object.is(expected, actual) || (expected === 0 && actual === 0) ? [] : [{ pointer, expected, actual }]
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function show(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value)
}

function summary(entry: JournalEntry): EntrySummary {
  return { id: entry.id, method: entry.method, path: entry.path, status: entry.status, operationId: entry.operationId }
}

function describe(entry: JournalEntry | EntrySummary): string {
  return `#${entry.id} ${entry.method} ${entry.path} → ${entry.status ?? 'no answer'} (${entry.operationId})`
}
