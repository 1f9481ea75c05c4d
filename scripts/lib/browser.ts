// Debian's chromium driven by playwright-core, kept off the network: for the explorer test and
// the screenshot script. Never `playwright install`: the browser is the system's.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
/** NSS's tool, which makes the certificate database Chromium on Linux reads its trusted CAs from. */
export const CERTUTIL = '/usr/bin/certutil'

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

/** Why the browser cannot be made to trust a CA here (openOfflinePage's `trust`), or undefined. */
export function trustMissing(): string | undefined {
  return browserMissing() ?? (existsSync(CERTUTIL) ? undefined : `${CERTUTIL} is missing (install libnss3-tools)`)
}

export interface OfflinePage {
  readonly page: Page
  /** Every request that tried to leave 127.0.0.1 (each was aborted). */
  readonly offsite: string[]
  /** Console errors and uncaught page errors, but a load cut by a change of the machine's network. */
  readonly errors: string[]
  close(): Promise<void>
}

/**
 * A fresh profile and one page whose requests may reach 127.0.0.1 only; the rest are aborted and
 * recorded. With `trust`, a CA's PEM, the browser trusts that CA besides its own roots, as a user
 * who imported it would: every certificate check stays on.
 */
export async function openOfflinePage(viewport = { width: 1280, height: 900 }, trust?: string): Promise<OfflinePage> {
  const profile = await mkdtemp(join(tmpdir(), 'animal-store-chromium-'))
  let context: BrowserContext
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport,
      serviceWorkers: 'block',
      ...(trust === undefined ? {} : { env: { ...process.env, HOME: await homeTrusting(profile, trust) } }),
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
    // Chromium on Linux cuts the loads in flight when any interface's address changes (a container
    // started beside it adds one): the machine's doing, not the page's, and its content is checked anyway.
    if (message.type() === 'error' && !message.text().includes('net::ERR_NETWORK_CHANGED'))
      errors.push(`console: ${message.text()}`)
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

/** A home folder whose NSS database (~/.pki/nssdb, where Chromium on Linux looks) trusts `ca`. */
async function homeTrusting(profile: string, ca: string): Promise<string> {
  const home = join(profile, 'home')
  const database = join(home, '.pki', 'nssdb')
  await mkdir(database, { recursive: true })
  const caFile = join(profile, 'ca.pem')
  await writeFile(caFile, ca)
  execFileSync(CERTUTIL, ['-d', `sql:${database}`, '-N', '--empty-password'])
  execFileSync(CERTUTIL, ['-d', `sql:${database}`, '-A', '-t', 'C,,', '-n', 'Animal Store sandbox CA', '-i', caFile])
  return home
}
