// HTTPS of a sandbox started with TLS=auto: it makes a CA at each start and writes its PEM to the
// file TLS_CA_OUT names in the container. The module copies that file out and trusts that CA, and
// only it, in its own wait and control client.
import tar from 'tar-stream'

/** Where the image's sandbox writes its CA with TLS=auto (TLS_CA_OUT). */
export const TLS_CA_FILE = '/tmp/animal-store-ca.pem'

/** The file a sandbox with these settings writes its CA to; undefined when it makes none (plain HTTP). */
export function caFileOf(environment: Readonly<Record<string, string | undefined>>): string | undefined {
  return environment['TLS'] === 'auto' ? environment['TLS_CA_OUT'] || TLS_CA_FILE : undefined
}

/** The text of the file in a tar archive of one file, as the engine copies a file out of a container. */
export async function fileOfArchive(archive: NodeJS.ReadableStream): Promise<string> {
  const extract = tar.extract()
  archive.pipe(extract)
  let text: string | undefined
  for await (const entry of extract) {
    const chunks: Buffer[] = []
    for await (const chunk of entry) chunks.push(chunk as Buffer)
    if (entry.header.type === 'file') text ??= Buffer.concat(chunks).toString('utf8')
  }
  if (text === undefined) throw new Error('the archive copied out of the container holds no file')
  return text
}
