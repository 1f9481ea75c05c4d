// The TLS capability: HTTPS on the sandbox's one port, with the certificate brought (TLS_CERT,
// TLS_KEY) or a CA and a leaf made at each start (TLS=auto), the CA written to TLS_CA_OUT and
// served by the control API's getTlsCa. Without TLS it serves plain HTTP and getTlsCa is a 404.
import { writeFile } from 'node:fs/promises'
import type { TlsOptions } from 'node:tls'
import type { Capability } from '../capability.js'
import { ok } from '../control/control-operation.js'
import { ERRORS, HttpError } from '../http/errors.js'
import { TypedText } from '../http/reply.js'
import { secureOptions, tlsFiles, type TlsSetting } from './tls.js'

export interface TlsSettings {
  readonly tls: TlsSetting | undefined
  /** TLS_CLIENT_CA: the CA of the client certificates asked for. */
  readonly clientCa: string | undefined
  /** TLS_CA_OUT: where the CA that TLS=auto made is written. */
  readonly caOut: string | undefined
}

export interface TlsCapability extends Capability {
  /** What the server serves HTTPS with (src/http/server.ts); undefined for plain HTTP. */
  readonly serving: TlsOptions | undefined
  /** The CA that TLS=auto made, PEM: what a client trusts; undefined for a certificate brought. */
  readonly ca: string | undefined
  /** What the sandbox's own clients (the MCP tools) trust: the CA made, or the certificate brought. */
  readonly trusted: string | undefined
}

const PEM = 'application/x-pem-file'

export async function tls({ tls, clientCa, caOut }: TlsSettings): Promise<TlsCapability> {
  const files = tls && (await tlsFiles(tls, clientCa))
  const ca = files?.ca
  if (ca !== undefined && caOut !== undefined) await writeFile(caOut, ca)
  return {
    name: 'tls',
    serving: files && secureOptions(files),
    ca,
    trusted: files && (files.ca ?? files.cert),
    controlOperations: {
      getTlsCa() {
        if (ca === undefined) throw new HttpError(ERRORS.notFound, 'This sandbox made no CA: TLS=auto makes one')
        return ok(new TypedText(PEM, ca))
      },
    },
  }
}
