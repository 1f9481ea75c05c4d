// The store-size curve as a small self-contained SVG: log-scaled axes, one line per figure.
export interface CurvePoint {
  readonly pets: number
  readonly startMs: number
  readonly createP50Ms: number
  readonly createP99Ms: number
  readonly listP50Ms: number
}

const SERIES = [
  { key: 'startMs', label: 'start (spawn → first 200)', color: '#1f77b4' },
  { key: 'createP99Ms', label: 'durable create p99, 1 client', color: '#d62728' },
  { key: 'createP50Ms', label: 'durable create p50, 1 client', color: '#ff7f0e' },
  { key: 'listP50Ms', label: 'GET /v1/pets p50, 1 client', color: '#2ca02c' },
] as const

export function renderCurve(points: readonly CurvePoint[], caption: string): string {
  const width = 640
  const height = 380
  const left = 70
  const right = 230
  const top = 40
  const bottom = 60
  const plotW = width - left - right
  const plotH = height - top - bottom
  const xs = points.map((p) => p.pets)
  const ys = points.flatMap((p) => SERIES.map((s) => p[s.key])).filter((v) => v > 0)
  const xMin = Math.log10(Math.min(...xs))
  const xMax = Math.log10(Math.max(...xs))
  const yMin = Math.floor(Math.log10(Math.min(...ys)))
  const yMax = Math.ceil(Math.log10(Math.max(...ys)))
  const x = (v: number): number => left + (xMax === xMin ? plotW / 2 : ((Math.log10(v) - xMin) / (xMax - xMin)) * plotW)
  const y = (v: number): number =>
    top + plotH - ((Math.log10(Math.max(v, 10 ** yMin)) - yMin) / Math.max(yMax - yMin, 1)) * plotH
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${left}" y="22" font-size="14" font-weight="bold">Store size vs. start and request latency (ms, log scales)</text>`,
  ]
  for (let e = yMin; e <= yMax; e++) {
    const v = 10 ** e
    out.push(`<line x1="${left}" x2="${left + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`)
    out.push(`<text x="${left - 8}" y="${y(v) + 4}" text-anchor="end">${v >= 1 ? v : v.toFixed(-e)}</text>`)
  }
  for (const pets of xs) {
    out.push(`<line x1="${x(pets)}" x2="${x(pets)}" y1="${top}" y2="${top + plotH}" stroke="#eee"/>`)
    out.push(`<text x="${x(pets)}" y="${top + plotH + 18}" text-anchor="middle">${pets.toLocaleString('en-US')}</text>`)
  }
  out.push(`<text x="${left + plotW / 2}" y="${top + plotH + 38}" text-anchor="middle">pets in DATA_FILE</text>`)
  out.push(
    `<text x="16" y="${top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${top + plotH / 2})">milliseconds</text>`,
  )
  out.push(`<rect x="${left}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`)
  SERIES.forEach((series, index) => {
    const path = points
      .map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.pets).toFixed(1)},${y(p[series.key]).toFixed(1)}`)
      .join(' ')
    out.push(`<path d="${path}" fill="none" stroke="${series.color}" stroke-width="2"/>`)
    for (const p of points)
      out.push(
        `<circle cx="${x(p.pets).toFixed(1)}" cy="${y(p[series.key]).toFixed(1)}" r="3.5" fill="${series.color}"><title>${p.pets} pets: ${p[series.key]} ms</title></circle>`,
      )
    const ly = top + 10 + index * 20
    out.push(
      `<line x1="${left + plotW + 15}" x2="${left + plotW + 35}" y1="${ly}" y2="${ly}" stroke="${series.color}" stroke-width="2"/>`,
    )
    out.push(`<text x="${left + plotW + 40}" y="${ly + 4}">${escape(series.label)}</text>`)
  })
  out.push(`<text x="${left}" y="${height - 8}" fill="#555">${escape(caption)}</text>`)
  out.push('</svg>')
  return `${out.join('\n')}\n`
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}
