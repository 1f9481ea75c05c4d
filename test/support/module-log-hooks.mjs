// The resolve hook module-log.mjs registers (it runs on the loader's own thread).
import { appendFileSync } from 'node:fs'

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  if (process.env.MODULE_LOG) appendFileSync(process.env.MODULE_LOG, `${resolved.url}\n`)
  return resolved
}
