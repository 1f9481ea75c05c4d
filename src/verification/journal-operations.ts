// The control API's reads of a namespace's request journal: its calls (with retries as one call
// when asked), clearing them, and the coverage report read from it. A new operation of this kind
// goes here, and needs no other list.
import { ERRORS, HttpError } from '../http/errors.js'
import { TypedText } from '../http/reply.js'
import { readDateTime } from '../namespaces/clock.js'
import { ok, type ControlOperations } from '../control/control-operation.js'
import { coverageMarkdown, coverageOf } from '../journal/coverage.js'
import { logicalPage } from '../journal/logical-calls.js'
import { UNMATCHED } from '../journal/request-record.js'

const MARKDOWN = 'text/markdown; charset=utf-8'

export const journalHandlers: ControlOperations = {
  listRequests(
    { query: { method, path, operationId, status, since, traceId, logicalCalls, limit, after } },
    { namespace },
  ) {
    const read = since === undefined ? undefined : readDateTime(since)
    if (read?.problem !== undefined)
      throw new HttpError(ERRORS.invalidParameter, `Invalid query parameter: query.since ${read.problem}`)
    const filter = { method, path, operationId, status, since: read?.date, traceId }
    const { journal } = namespace
    if (logicalCalls === true) return ok(logicalPage(journal.find(filter), { limit: limit as number, after }, journal))
    return ok(journal.page(filter, { limit: limit as number, after }))
  },

  listUnmatchedRequests({ query: { limit, after } }, { namespace }) {
    return ok(namespace.journal.page({ operationId: UNMATCHED }, { limit: limit as number, after }))
  },

  clearRequests(_input, { namespace }) {
    return ok({ namespace: namespace.name, cleared: namespace.journal.clear() })
  },

  async getCoverage({ query }, { namespace, namespaces, apiSpec }) {
    if (query.all === true && query.namespace !== undefined)
      throw new HttpError(
        ERRORS.invalidParameter,
        'Invalid query parameter: all=true reports on every namespace; leave out namespace',
      )
    if (query.all === true) await namespaces.all()
    const report = coverageOf(apiSpec, namespaces, query.all === true ? undefined : namespace, query.traceId)
    return ok(query.format === 'markdown' ? new TypedText(MARKDOWN, coverageMarkdown(report)) : report)
  },
}
