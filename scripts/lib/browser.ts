// Debian's chromium driven by playwright-core, kept off the network: for the explorer test and
// the screenshot script. Never `playwright install`: the browser is the system's.
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
  // Even a request the page routing missed cannot resolve any host but the loopback address.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
]

/** Why the browser cannot run here, or undefined when it can. */
export function browserMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing (install Debian's chromium package)`
}

export interface OfflinePage {
  readonly page: Page
  /** Every request that tried to leave 127.0.0.1 (each was aborted). */
  readonly offsite: string[]
  /** Console errors and uncaught page errors. */
  readonly errors: string[]
  close(): Promise<void>
}

/** A fresh profile and one page whose requests may reach 127.0.0.1 only; the rest are aborted and recorded. */
export async function openOfflinePage(viewport = { width: 1280, height: 900 }): Promise<OfflinePage> {
  const profile = await mkdtemp(join(tmpdir(), 'animal-store-chromium-'))
  let context: BrowserContext
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport,
      serviceWorkers: 'block',
    })
  } catch (error) {
    await rm(profile, { recursive: true, force: true })
    throw error
  }
  const offsite: string[] = []
  const errors: string[] = []
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url())
    if (url.hostname === '127.0.0.1') return route.continue()
    offsite.push(url.href)
    return route.abort('blockedbyclient')
  })
  context.on('request', (request) => {
    const url = new URL(request.url())
    if (url.protocol !== 'data:' && url.hostname !== '127.0.0.1' && !offsite.includes(url.href)) offsite.push(url.href)
  })
  const page = context.pages()[0] ?? (await context.newPage())
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`)
  })
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`))
  return {
    page,
    offsite,
    errors,
    close: async () => {
      await context.close()
      await rm(profile, { recursive: true, force: true })
    },
  }
}
