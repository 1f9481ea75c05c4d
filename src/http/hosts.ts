// Who may reach the test data (the control API and the coverage page) by the name it asks for.
// DNS rebinding makes a page's origin this sandbox, its requests same-origin with `Host: <the
// page's name>`: refusing names the sandbox does not serve closes that door. An IP address as Host
// cannot come from rebinding (the page would have to be served by the sandbox itself).
import { isIP } from 'node:net'
import { hostname } from 'node:os'

/** ALLOWED_HOSTS' value that turns the check off. */
export const ANY_HOST = '*'

/** 127.0.0.0/8 and ::1, also as a dual-stack socket shows them (::ffff:127.0.0.1). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice('::ffff:'.length) : address
  return (isIP(v4) === 4 && v4.startsWith('127.')) || address === '::1'
}

/** Whether HOST lets only this machine connect: localhost or a loopback address. */
export function listensOnLoopbackOnly(host: string): boolean {
  return host.toLowerCase() === 'localhost' || isLoopbackAddress(host)
}

/**
 * Whether a request's Host names this sandbox: any IP address, `localhost` and `*.localhost`
 * (which browsers resolve to loopback themselves), this machine's name (a container's own), the
 * name HOST binds, and ALLOWED_HOSTS. A request without Host (HTTP/1.0) comes from no browser.
 */
export function hostsServed(allowedHosts: readonly string[], bindHost: string): (host: string | undefined) => boolean {
  if (allowedHosts.includes(ANY_HOST)) return () => true
  const names = new Set(['localhost', hostname(), bindHost, ...allowedHosts].map(nameOf))
  return (host) => {
    if (host === undefined) return true
    const name = nameOf(withoutPort(host))
    return isIP(name) !== 0 || names.has(name) || name.endsWith('.localhost')
  }
}

/** `example.test:4010` → `example.test`; `[::1]:4010` → `::1`. */
function withoutPort(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']')
    return end === -1 ? host : host.slice(1, end)
  }
  const colon = host.indexOf(':')
  return colon === -1 ? host : host.slice(0, colon)
}

/** Names compare without case and without the root's trailing dot. */
function nameOf(host: string): string {
  const lower = host.trim().toLowerCase()
  return lower.endsWith('.') ? lower.slice(0, -1) : lower
}
