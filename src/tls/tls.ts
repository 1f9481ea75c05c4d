// HTTPS. TLS=auto makes a CA and a leaf certificate signed by it at each start, so a test can trust
// the CA alone with verification on; TLS_CERT and TLS_KEY bring one's own. Keys are never printed:
// a message names the setting or the file, never what it holds.
import { X509Certificate, createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { hostname } from 'node:os'
import { dirname, resolve } from 'node:path'
import type { SecureContextOptions, TlsOptions } from 'node:tls'
import type Forge from 'node-forge'
import { accepting, fail, HOST_NAME, items, setting } from '../setting-readers.js'

/** What a server serves HTTPS with; `ca` is the CA that TLS=auto made, for clients to trust. */
export interface TlsFiles {
  readonly cert: string
  readonly key: string
  readonly ca: string | undefined
  readonly clientCa: string | undefined
}

// X25519MLKEM768, the post-quantum hybrid the guidelines put first, needs OpenSSL 3.5 (Node 24's).
const [major = 0, minor = 0] = process.versions.openssl.split('.').map(Number)
const hybrid = major * 100 + minor >= 305 ? ['X25519MLKEM768'] : []

/**
 * What every TLS server of the sandbox offers: Mozilla's intermediate profile (guidelines 6.0,
 * https://ssl-config.mozilla.org/). TLS 1.2 with forward-secret AEAD suites only, TLS 1.3 with
 * Node's suites, the profile's key exchange groups, and the client's order, all suites being strong.
 */
export const TLS_PROFILE = {
  minVersion: 'TLSv1.2',
  // Names without the TLS_ prefix set TLS 1.2's suites alone: TLS 1.3 keeps Node's three.
  ciphers: [
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
  ecdhCurve: [...hybrid, 'X25519', 'prime256v1', 'secp384r1'].join(':'),
  honorCipherOrder: false,
} as const satisfies SecureContextOptions

/** How HTTPS is asked for: made at start (TLS=auto) or brought (TLS_CERT, TLS_KEY). */
export type TlsSetting =
  | { readonly kind: 'auto'; readonly names: readonly string[] }
  | { readonly kind: 'own'; readonly cert: string; readonly key: string }

const none = undefined as string | undefined

/** Reads a file a setting names, refusing an unreadable one with its reason. */
const fileText = (file: string, name: string): string => {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    return fail(`${name}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
  }
}

const certificates = (value: string, name: string): string => {
  const text = fileText(value, name)
  let cert: X509Certificate
  try {
    cert = new X509Certificate(text)
  } catch {
    return fail(`${name}: ${value} holds no PEM certificate`)
  }
  // Outside its validity every client refuses it: say so now rather than at each handshake.
  if (new Date(cert.validTo) < new Date()) fail(`${name}: the certificate in ${value} expired on ${cert.validTo}`)
  if (new Date(cert.validFrom) > new Date())
    fail(`${name}: the certificate in ${value} is valid only from ${cert.validFrom}`)
  return text
}

const privateKey = (value: string, name: string): string => {
  const text = fileText(value, name)
  try {
    createPrivateKey(text)
  } catch {
    fail(`${name}: ${value} holds no unencrypted PEM private key`)
  }
  return text
}

const names = (value: string, name: string): string[] =>
  items(value).map((item) =>
    HOST_NAME.test(item) || isIP(item) !== 0
      ? item
      : fail(`${name}: ${JSON.stringify(item)} is not a host name or IP address; e.g. animal-store`),
  )

export const TLS_SETTINGS = {
  tls: setting({
    default: 'off' as 'off' | 'auto',
    parse: accepting({ enum: ['off', 'auto'] }, (value, name) =>
      value === 'off' || value === 'auto' ? value : fail(`${name} must be off or auto, got ${JSON.stringify(value)}`),
    ),
    help: '`auto` serves HTTPS and HTTP/2 with a CA and a certificate made at start',
    see: ['HTTPS', 'docs/tls.md'],
  }),
  tlsNames: setting({
    sameRow: true,
    default: [] as string[],
    shown: 'none',
    parse: names,
    help: "more names (comma-separated) the certificate of `TLS=auto` is for, besides localhost, 127.0.0.1, ::1 and this machine's name",
  }),
  tlsCaOut: setting({
    sameRow: true,
    default: none,
    shown: 'none',
    parse: (value: string, name: string) =>
      existsSync(dirname(resolve(value)))
        ? resolve(value)
        : fail(`${name}: no folder ${dirname(resolve(value))} to write the CA in`),
    help: 'where `TLS=auto` writes its CA certificate (PEM) for clients to trust (the image: /tmp/animal-store-ca.pem)',
  }),
  tlsCert: setting({
    default: none,
    shown: 'none',
    parse: certificates,
    help: 'a PEM certificate (chain) to serve HTTPS and HTTP/2 with, instead of `TLS=auto`; with `TLS_KEY`',
  }),
  tlsKey: setting({
    sameRow: true,
    default: none,
    shown: 'none',
    parse: privateKey,
    help: "`TLS_CERT`'s private key (PEM, never printed or logged)",
  }),
  tlsClientCa: setting({
    sameRow: true,
    default: none,
    shown: 'none',
    parse: certificates,
    help: 'with HTTPS on, ask every client for a certificate signed by this CA (PEM): mutual TLS',
  }),
}

type Given = (key: keyof typeof TLS_SETTINGS) => string | undefined
type TlsSettings = { [K in keyof typeof TLS_SETTINGS]: (typeof TLS_SETTINGS)[K]['default'] }

/** The rules that join the TLS settings: what HTTPS is served with, or undefined for plain HTTP. */
export function tlsOf(s: TlsSettings, given: Given): TlsSetting | undefined {
  const own = s.tlsCert !== undefined || s.tlsKey !== undefined
  if (s.tls === 'auto' && own)
    fail(`${given('tls')} makes its own certificate: leave out ${given('tlsCert') ?? given('tlsKey')}, or TLS`)
  // TLS_CA_OUT alone is allowed: the image names a path for a CA that only TLS=auto makes.
  if (s.tls !== 'auto' && given('tlsNames') !== undefined) fail(`${given('tlsNames')} applies only with TLS=auto`)
  if (own && (s.tlsCert === undefined || s.tlsKey === undefined))
    fail(`${given('tlsCert') ?? given('tlsKey')} needs ${given('tlsCert') ? 'TLS_KEY' : 'TLS_CERT'} beside it`)
  if (s.tlsCert !== undefined && s.tlsKey !== undefined) {
    if (!new X509Certificate(s.tlsCert).checkPrivateKey(createPrivateKey(s.tlsKey)))
      fail(`${given('tlsKey')} is not the private key of the certificate in ${given('tlsCert')}`)
    return { kind: 'own', cert: s.tlsCert, key: s.tlsKey }
  }
  if (s.tls === 'auto') return { kind: 'auto', names: s.tlsNames }
  if (given('tlsClientCa') !== undefined) fail(`${given('tlsClientCa')} applies only with HTTPS on (TLS or TLS_CERT)`)
  return undefined
}

/** What the server is given: the profile, the certificate and key, and the CA of the client certificates it asks for. */
export function secureOptions({ cert, key, clientCa }: TlsFiles): TlsOptions {
  return { ...TLS_PROFILE, cert, key, ...(clientCa === undefined ? {} : { ca: clientCa, requestCert: true }) }
}

/** The certificate and key to serve: those brought, or a CA and a leaf for `names` made now. */
export async function tlsFiles(setting: TlsSetting, clientCa: string | undefined): Promise<TlsFiles> {
  if (setting.kind === 'own') return { cert: setting.cert, key: setting.key, ca: undefined, clientCa }
  // Loaded here only: a start without TLS=auto does not pay for the library.
  const { default: forge } = await import('node-forge')
  const ca = makeCertificate(forge, 'Animal Store sandbox CA', [])
  const leaf = makeCertificate(forge, 'localhost', ['localhost', '127.0.0.1', '::1', hostname(), ...setting.names], ca)
  return { cert: leaf.pem, key: leaf.keyPem, ca: ca.pem, clientCa }
}

interface Made {
  readonly cert: Forge.pki.Certificate
  readonly key: Forge.pki.rsa.PrivateKey
  readonly pem: string
  readonly keyPem: string
}

const DAY_MS = 24 * 60 * 60 * 1000

/** A CA when no `issuer` is given, else a server certificate for `altNames` signed by it. */
function makeCertificate(forge: typeof Forge, commonName: string, altNames: readonly string[], issuer?: Made): Made {
  // Node makes the key (fast, native); the library writes the certificate.
  const keyPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs1', format: 'pem' })
    .toString()
  const key = forge.pki.privateKeyFromPem(keyPem) as Forge.pki.rsa.PrivateKey
  const cert = forge.pki.createCertificate()
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e)
  // Positive and unique: a client that trusted an earlier start's CA tells the two apart.
  cert.serialNumber = `01${randomBytes(16).toString('hex')}`
  // A day back: a client whose clock is a little behind still accepts it.
  cert.validity.notBefore = new Date(Date.now() - DAY_MS)
  cert.validity.notAfter = new Date(Date.now() + 365 * DAY_MS)
  const subject = [{ name: 'commonName', value: commonName }]
  cert.setSubject(subject)
  cert.setIssuer(issuer?.cert.subject.attributes ?? subject)
  // What RFC 5280 asks and strict verifiers check (OpenSSL's x509_strict, Python 3.13's default
  // context, the CA/Browser Forum's profile): key identifiers tie the leaf to its CA's key.
  const keyIds = [
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: issuer?.cert.generateSubjectKeyIdentifier().getBytes() ?? true },
  ]
  cert.setExtensions(
    issuer === undefined
      ? [
          { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
          { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
          ...keyIds,
        ]
      : [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
          // clientAuth too: a certificate made so serves as a client's in mutual TLS (the tests do).
          { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
          {
            name: 'subjectAltName',
            altNames: [...new Set(altNames)].map((name) =>
              isIP(name) ? { type: 7, ip: name } : { type: 2, value: name },
            ),
          },
          ...keyIds,
        ],
  )
  cert.sign(issuer?.key ?? key, forge.md.sha256.create())
  return { cert, key, pem: forge.pki.certificateToPem(cert), keyPem }
}
