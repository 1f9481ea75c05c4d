/**
 * A failing test's bundle (GET /__admin/bundle, docs/bundle.md): one file that a replay turns back
 * into the calls the test made and the answers it got, saved where the run keeps its reports.
 *
 * @example
 * // node:test, in the helper that gives a test its namespace, before the cleanup that deletes it
 * t.after(() => saveBundleOnFailure(namespace, { name: t.fullName, failed: !t.passed }))
 * // Vitest: test('…', async (context) => …), and context.onTestFinished(({ task }) => …)
 * onTestFinished(({ task }) => saveBundleOnFailure(namespace, { name: task.fullName, failed: task.result?.state === 'fail' }))
 *
 * @module
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Client } from 'openapi-fetch'
import type { paths } from './admin-types.js'

/** Where bundles go unless told: relative to the run's working folder (the project's, for npm test). */
export const BUNDLE_FOLDER = 'test-results'

/** What a test's name may keep in a file name; the rest becomes "_". */
const NOT_IN_FILE_NAME = /[^A-Za-z0-9_.-]+/g

/** A test as it ends: its name (the runner's full name tells apart tests of one name), and whether it failed. */
export interface EndedTest {
  readonly name: string
  readonly failed: boolean
}

/** `a dog: created > listed` gives `a_dog_created_listed.bundle.json`. */
export function bundleFileName(testName: string): string {
  return `${testName.replace(NOT_IN_FILE_NAME, '_').replace(/^[_.]+|_+$/g, '')}.bundle.json`
}

/**
 * When the test failed, writes its namespace's bundle, as the sandbox sent it (secrets already
 * cut), to `<folder>/<test name>.bundle.json` and returns that path; else does nothing.
 * @param folder `test-results` (relative to the working folder) by default
 */
export async function saveBundleOnFailure(
  namespace: { readonly api: Client<paths> }, // a NamespaceControl
  test: EndedTest,
  folder: string = BUNDLE_FOLDER,
): Promise<string | undefined> {
  if (!test.failed) return undefined
  const { data } = await namespace.api.GET('/bundle', { parseAs: 'text' }) // a refusal has thrown
  const path = resolve(folder, bundleFileName(test.name))
  await mkdir(folder, { recursive: true })
  await writeFile(path, data ?? '')
  return path
}
