// Package control is a client of the Animal Store sandbox's control API (/__admin), generated
// from its spec (control.gen.go): reset and replace the pets, read the journal of requests,
// inject faults, move the clock, report what the requests covered of the API's contract and
// verify the calls a test expected. Each operation's …WithResponse method decodes its answer
// (JSON200, or the Error of a refusal, e.g. JSON400). It works against any running sandbox, in a
// container or not.
//
// Each operation acts on the namespace its params name (the default one when none is named). The
// optional query parameters of a …Params are pointers: a nil one is not sent, and a set one is
// sent even at its zero value (Limit: Ptr(0) asks for the journal's count alone).
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
			return nil
		})}, opts...)...)
}

// Ptr returns a pointer to v, to set an optional query parameter of a …Params.
func Ptr[T any](v T) *T {
	return &v
}
