// Where the package's files are. This module sits at the top of src/, and so at the top of dist/
// beside the bundled command (dist/cli.js): from either, '../' is the package root. Every other
// module asks here instead of counting '../' from its own folder.
import { fileURLToPath } from 'node:url'

export const PACKAGE_ROOT = new URL('../', import.meta.url)
/** Where a build writes its outputs (dist/); under tsx, src/, where none are. */
export const BUILD_DIR = new URL('./', import.meta.url)

export const SPEC_FILE = new URL('spec/openapi.yaml', PACKAGE_ROOT)
export const CONTROL_SPEC_FILE = new URL('spec/admin.openapi.yaml', PACKAGE_ROOT)
export const DEFAULT_FIXTURES = fileURLToPath(new URL('fixtures/pets.json', PACKAGE_ROOT))
/** The specs with their validators precompiled by a build (scripts/compile-spec.ts). */
export const COMPILED_SPEC = new URL('spec.compiled.js', BUILD_DIR)
export const COMPILED_CONTROL_SPEC = new URL('admin-spec.compiled.js', BUILD_DIR)
