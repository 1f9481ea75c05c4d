// The explorer capability: GET /, /docs and the spec documents for everyone; the coverage and
// journal pages, test data, while the control API is on.
import type { IncomingMessage } from 'node:http'
import type { Capability } from '../capability.js'
import { adminTokenCheck, CONTROL_API_PATH, type ControlApiOptions } from '../control/control-api.js'
import { coverageOf } from '../journal/coverage.js'
import type { ApiSpec } from '../contract/types.js'
import { COVERAGE_PAGE, JOURNAL_PAGE, mountExplorer, mountSpecDocuments, type SandboxFacts } from './pages.js'

export type { SandboxFacts }

export interface ExplorerSettings {
  readonly spec: ApiSpec
  readonly facts: SandboxFacts
  /** The control API's options; undefined when it is off, and with it the pages of test data. */
  readonly controlApi: ControlApiOptions | undefined
}

export function explorer({ spec, facts, controlApi }: ExplorerSettings): Capability {
  const checkAdminToken = controlApi && adminTokenCheck(controlApi)
  // Namespace names are often a team's or a test's: only the admin token's holder sees them.
  const coverage =
    controlApi &&
    checkAdminToken &&
    ((req: IncomingMessage, name: string | undefined) => {
      const named = name !== undefined || req.headers.authorization !== undefined
      if (named) checkAdminToken(req)
      const namespace = name === undefined ? undefined : controlApi.namespaces.find(name)
      if (name !== undefined && namespace === undefined) return undefined
      return { report: coverageOf(spec, controlApi.namespaces, namespace), named }
    })
  return {
    name: 'explorer',
    routes: {
      pages: (router) =>
        mountExplorer(router, { spec, facts, coverage, controlApiPath: controlApi && CONTROL_API_PATH }),
      api: (router) => mountSpecDocuments(router, { spec, facts }),
      testData: controlApi ? [COVERAGE_PAGE, JOURNAL_PAGE] : [],
    },
  }
}
