// What runs in the visitor's browser on /docs: the page's Content-Security-Policy (it may talk to
// this sandbox only) and the script that starts Swagger UI on the sandbox's spec.

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
