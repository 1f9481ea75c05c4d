// Package control is a client of the Animal Store sandbox's control API (/__admin), generated
// from its spec (control.gen.go): reset and replace the pets, read the journal of requests,
// inject faults, move the clock, report what the requests covered of the API's contract and
// verify the calls a test expected. Each operation's …WithResponse method decodes its answer
// (JSON200, or the Error of a refusal, e.g. JSON400). It works against any running sandbox, in a
// container or not.
//
// Each operation acts on the namespace its params name (the default one when none is named).
package control

import (
	"context"
	"net/http"
	"strings"
)

// NamespaceHeader chooses the namespace of an API request.
const NamespaceHeader = "X-Sandbox-Namespace"

// New returns a client of the control API of the sandbox at sandboxURL, its root (e.g.
// http://localhost:4010, not the API's /v1), that sends adminToken (the sandbox's ADMIN_TOKEN).
// opts come after its own, e.g. WithHTTPClient with a client that trusts the CA of a sandbox
// served over HTTPS.
func New(sandboxURL, adminToken string, opts ...ClientOption) (*ClientWithResponses, error) {
	return NewClientWithResponses(strings.TrimSuffix(sandboxURL, "/")+"/__admin",
		append([]ClientOption{WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+adminToken)
			dropUnsetParams(req)
			return nil
		})}, opts...)...)
}

// dropUnsetParams removes the query parameters left at their zero value: the generated client
// sends every field of a …Params, and the sandbox takes an empty namespace, trace id or filter,
// or a limit or status of 0, as that value.
func dropUnsetParams(req *http.Request) {
	query := req.URL.Query()
	for name, values := range query {
		if values[0] == "" || values[0] == "0" {
			query.Del(name)
		}
	}
	req.URL.RawQuery = query.Encode()
}
