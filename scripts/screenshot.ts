// Makes docs/explorer.png: the /docs explorer after "try it" on listPets, in Debian's chromium,
// off the network, with the tooling of the browser test. npm run screenshot
import { mkdir } from 'node:fs/promises'
import { DEFAULT_PORT, loadConfig } from '../src/config.js'
import { createLogger } from '../src/logger.js'
import { startSandbox, type Sandbox } from '../src/sandbox.js'
import { browserMissing, openOfflinePage } from './lib/browser.js'

const OUTPUT = new URL('../docs/explorer.png', import.meta.url)

const missing = browserMissing()
if (missing) throw new Error(`cannot make the screenshot: ${missing}`)

// The documented defaults (port 4010, default key, built-in fixtures), in memory; any free port if 4010 is taken.
async function start(port: number): Promise<Sandbox> {
  const config = loadConfig([], { PORT: String(port), DATA_FILE: ':memory:', LOG_LEVEL: 'silent' })
  if (config === 'help') throw new Error('unexpected help')
  return startSandbox(config, createLogger('silent'))
}
const sandbox = await start(DEFAULT_PORT).catch((error: NodeJS.ErrnoException) => {
  if (error.code === 'EADDRINUSE') return start(0)
  throw error
})
const browser = await openOfflinePage({ width: 1280, height: 900 })
try {
  const { page } = browser
  await page.goto(`${sandbox.origin}/docs`)
  const listPets = page.locator('#operations-pets-listPets')
  await listPets.waitFor({ timeout: 30_000 })
  await listPets.locator('.opblock-summary-control').click()
  await listPets.locator('button.execute').click()
  const body = listPets.locator('.live-responses-table .response-col_description pre').first()
  await body.waitFor({ timeout: 15_000 })
  const box = await body.boundingBox()
  if (!box) throw new Error('the response body is not on the page')
  if (browser.errors.length > 0 || browser.offsite.length > 0)
    throw new Error(`the page misbehaved: ${[...browser.errors, ...browser.offsite].join('; ')}`)
  await mkdir(new URL('.', OUTPUT), { recursive: true })
  // From the top of the page down to the first pets of the response: the sandbox answering.
  await page.mouse.move(0, 0)
  const top = await page.evaluate<number>('window.scrollY')
  await page.screenshot({
    path: OUTPUT.pathname,
    fullPage: true,
    clip: { x: 0, y: 0, width: 1280, height: Math.ceil(top + box.y + Math.min(box.height, 300) + 16) },
  })
  console.log(`wrote ${OUTPUT.pathname}`)
} finally {
  await browser.close()
  await sandbox.close()
}
