// What runs in the visitor's browser: the pages' shell and style, their Content-Security-Policy and scripts.

// The page may talk to this sandbox only: no CDN, no fonts, no validator badge, no other server.
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ')

// Starts Swagger UI on the sandbox's spec. Plain browser JavaScript, served as /docs/explorer.js.
export const EXPLORER_SCRIPT = `'use strict'
;(function () {
  var config = JSON.parse(document.getElementById('explorer-config').textContent)
  // Operations marked x-try-it-disabled: true (GET /store/orders) are listed but cannot be tried.
  function TryItDisabled(system) {
    return {
      wrapComponents: {
        operation: function (Original) {
          return function (props) {
            var disabled = props.operation && props.operation.getIn(['op', 'x-try-it-disabled']) === true
            var operation = disabled ? props.operation.set('allowTryItOut', false).set('tryItOutEnabled', false) : props.operation
            return system.React.createElement(Original, Object.assign({}, props, { operation: operation }))
          }
        },
      },
    }
  }
  var ui = SwaggerUIBundle({
    url: config.specUrl,
    dom_id: '#swagger-ui',
    layout: 'BaseLayout',
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [TryItDisabled],
    deepLinking: true,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    showExtensions: true,
    validatorUrl: null,
    onComplete: function () {
      if (config.apiKey) ui.preauthorizeApiKey(config.securityScheme, config.apiKey)
    },
  })
  window.ui = ui
})()
`

// The journal page (/docs/journal): asks for the admin token once per tab (sessionStorage), then
// polls the control API's journal read with its `after` cursor and adds each new request as a row,
// newest on top. The namespace and trace come from the page's own query string.
export const JOURNAL_SCRIPT = `'use strict'
;(function () {
  var config = JSON.parse(document.getElementById('journal-config').textContent)
  var query = new URLSearchParams(location.search)
  var namespace = query.get('namespace')
  var traceId = query.get('traceId')
  var deprecated = new Set(config.deprecated)
  var form = document.getElementById('token-form')
  var field = document.getElementById('token')
  var state = document.getElementById('state')
  var rows = document.getElementById('rows')
  var TOKEN_KEY = 'animal-store-admin-token'
  var after = null
  var timer = null

  document.getElementById('scope').textContent =
    (namespace ? 'namespace ' + namespace : 'the default namespace') + (traceId ? ', trace ' + traceId : '')

  function cell(text, className) {
    var td = document.createElement('td')
    td.textContent = text
    if (className) td.className = className
    return td
  }
  function show(entry) {
    var tr = document.createElement('tr')
    tr.dataset.id = String(entry.id)
    var marks = []
    if (deprecated.has(entry.operationId)) marks.push('deprecated')
    if (entry.fault) marks.push('fault: ' + entry.fault)
    tr.append(
      cell(entry.time),
      cell(entry.method),
      cell(entry.path),
      cell(entry.status === null ? 'no answer' : String(entry.status)),
      cell(entry.operationId),
      cell(marks.join(', '), marks.length > 0 ? 'marked' : ''),
    )
    if (deprecated.has(entry.operationId)) tr.classList.add('deprecated')
    if (entry.fault) tr.classList.add('fault')
    rows.prepend(tr)
    while (rows.children.length > config.shown) rows.lastElementChild.remove()
  }
  function poll() {
    var token = sessionStorage.getItem(TOKEN_KEY)
    if (!token) {
      state.textContent = 'Enter the admin token to follow the journal.'
      return
    }
    var url = new URLSearchParams({ limit: String(config.pageSize) })
    if (namespace) url.set('namespace', namespace)
    if (traceId) url.set('traceId', traceId)
    if (after !== null) url.set('after', String(after))
    fetch(config.requests + '?' + url, { headers: { authorization: 'Bearer ' + token }, cache: 'no-store' })
      .then(function (res) {
        return res.json().then(function (body) {
          if (res.status === 200) {
            body.entries.forEach(function (entry) {
              show(entry)
              after = entry.id
            })
            state.textContent = 'Following: ' + body.count + ' requests in the journal.'
            // A full page means more are waiting: read on at once.
            timer = setTimeout(poll, body.next === null ? config.intervalMs : 0)
            return
          }
          if (res.status === 404 && body.code === 'not_found') {
            state.textContent = 'No requests yet: waiting for the first.'
            timer = setTimeout(poll, config.intervalMs)
            return
          }
          if (res.status === 401) sessionStorage.removeItem(TOKEN_KEY)
          state.textContent = res.status + ' ' + body.code + ': ' + body.message
          if (res.status !== 401 && res.status !== 400) timer = setTimeout(poll, config.intervalMs)
        })
      })
      .catch(function (error) {
        state.textContent = 'The sandbox did not answer (' + error.message + '); trying again.'
        timer = setTimeout(poll, config.intervalMs)
      })
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault()
    sessionStorage.setItem(TOKEN_KEY, field.value)
    field.value = ''
    clearTimeout(timer)
    poll()
  })
  poll()
})()
`

export const PAGE_STYLE = `
  body { margin: 0; font-family: system-ui, sans-serif; color: #1f2328; }
  .sandbox { max-width: 1460px; margin: 0 auto; padding: 16px 20px 0; box-sizing: border-box; }
  .sandbox h1 { font-size: 22px; margin: 0 0 6px; }
  .sandbox p { margin: 4px 0; font-size: 14px; line-height: 1.5; }
  .sandbox code { background: #f0f2f4; padding: 1px 5px; border-radius: 4px; }
  .sandbox .deprecated { background: #fff4e5; border-left: 4px solid #d97706; padding: 6px 10px; margin-top: 8px; }
  .sandbox dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; font-size: 14px; }
  .sandbox dt { font-weight: 600; }
  .sandbox dd { margin: 0; }
  .sandbox .stability { background: #eef4ff; border-left: 4px solid #2f6fde; padding: 6px 10px; margin-top: 8px; }
  .sandbox table { border-collapse: collapse; font-size: 14px; margin: 8px 0; }
  .sandbox th, .sandbox td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; }
  .sandbox td.yes { background: #dafbe1; }
  .sandbox td.no { background: #ffebe9; }
  .sandbox td.none { background: #f6f8fa; }
`

/** A page of the sandbox: `head` goes before its style, `style` after the shared one. */
export function htmlPage(title: string, body: string, { head = '', style = '' } = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
${head}<style>${PAGE_STYLE}${style}</style>
</head>
<body>
${body}
</body>
</html>
`
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
