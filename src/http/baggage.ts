// W3C Baggage (https://www.w3.org/TR/baggage/): the `baggage` header that OpenTelemetry-instrumented
// services pass on with every outbound call. A list of `key=value` members, separated by commas,
// each maybe followed by `;`-separated properties; values are percent-encoded; whitespace around
// keys, values and separators is allowed. Several baggage headers are one list (Node joins them
// with commas).
import type { IncomingMessage } from 'node:http'

/**
 * The values of the members named `key`, decoded, in order; an empty list when there are none. A
 * member whose value is not valid percent-encoding gives undefined in its place: the caller chose
 * that member, so it is told rather than left guessing. Other members are not looked at beyond
 * their key, so a malformed one elsewhere does not stop ours.
 */
export function baggageValues(req: IncomingMessage, key: string): Array<string | undefined> {
  const header = req.headers['baggage']
  if (header === undefined) return []
  const values: Array<string | undefined> = []
  for (const member of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const pair = member.split(';', 1)[0] as string
    const equals = pair.indexOf('=')
    if (equals < 0 || pair.slice(0, equals).trim() !== key) continue
    values.push(percentDecoded(pair.slice(equals + 1).trim()))
  }
  return values
}

function percentDecoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value)
  } catch {
    return undefined
  }
}
