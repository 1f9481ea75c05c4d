// The TLS capability: HTTPS on the sandbox's one port, with the certificate brought (TLS_CERT,
// TLS_KEY) or a CA and a leaf made at each start (TLS=auto), the CA written to TLS_CA_OUT.
import { writeFile } from 'node:fs/promises'
import type { TlsOptions } from 'node:tls'
import type { Capability } from '../capability.js'
import { secureOptions, tlsFiles, type TlsSetting } from './tls.js'

export interface TlsSettings {
  readonly tls: TlsSetting
  /** TLS_CLIENT_CA: the CA of the client certificates asked for. */
  readonly clientCa: string | undefined
  /** TLS_CA_OUT: where the CA that TLS=auto made is written. */
  readonly caOut: string | undefined
}

export interface TlsCapability extends Capability {
  /** What the server serves HTTPS with (src/http/server.ts). */
  readonly serving: TlsOptions
  /** The CA that TLS=auto made, PEM: what a client trusts; undefined for a certificate brought. */
  readonly ca: string | undefined
  /** What the sandbox's own clients (the MCP tools) trust: the CA made, or the certificate brought. */
  readonly trusted: string
}

export async function tls({ tls, clientCa, caOut }: TlsSettings): Promise<TlsCapability> {
  const files = await tlsFiles(tls, clientCa)
  if (files.ca !== undefined && caOut !== undefined) await writeFile(caOut, files.ca)
  return { name: 'tls', serving: secureOptions(files), ca: files.ca, trusted: files.ca ?? files.cert }
}
