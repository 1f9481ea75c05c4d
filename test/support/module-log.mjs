// Preloaded with --import: appends the URL of every ES module the process resolves to the file
// MODULE_LOG names, so that a test can tell which packages a start loaded.
import { register } from 'node:module'

register('./module-log-hooks.mjs', import.meta.url)
