// Package control is a client of the Animal Store sandbox's control API (/__admin): reset and
// replace the pets, read the journal of requests, inject faults, move the clock, report what the
// requests covered of the API's contract and verify the calls a test expected. It works against
// any running sandbox, in a container or not.
//
// Every call acts on one namespace: a [Client] from [New] on the default one, and
// [Client.Namespace] gives the same calls bound to another, with the base URL and headers that
// send the test's own API requests to that namespace.
package control

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/api"
)

const (
	// NamespaceHeader chooses the namespace of an API request.
	NamespaceHeader = "X-Sandbox-Namespace"

	apiPath   = "/v1"
	adminPath = "/__admin"
	// An error answer longer than this is cut in the error's message.
	maxErrorBody = 4096
)

// Client calls the control API of one sandbox, on one namespace. It is safe for concurrent use.
type Client struct {
	sandboxURL *url.URL
	adminToken string
	apiKey     string
	// namespace is "" for the default namespace.
	namespace string
}

// Option configures a [Client].
type Option func(*Client)

// WithAdminToken sets the control API's token (the sandbox's ADMIN_TOKEN).
func WithAdminToken(token string) Option {
	return func(c *Client) { c.adminToken = token }
}

// WithAPIKey sets the API key that [Client.Header] carries (one of the sandbox's API_KEYS).
func WithAPIKey(key string) Option {
	return func(c *Client) { c.apiKey = key }
}

// New returns a client of the sandbox at sandboxURL, its root (e.g. http://localhost:4010, not
// the API's /v1), acting on the default namespace.
func New(sandboxURL string, opts ...Option) (*Client, error) {
	parsed, err := url.Parse(sandboxURL)
	if err != nil {
		return nil, fmt.Errorf("control: sandbox URL: %w", err)
	}
	if (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return nil, fmt.Errorf("control: sandbox URL %q is not an http(s) URL with a host", sandboxURL)
	}
	parsed.Path = strings.TrimSuffix(parsed.Path, "/")
	c := &Client{sandboxURL: parsed}
	for _, opt := range opts {
		opt(c)
	}
	return c, nil
}

// Namespace returns a client whose calls act on the namespace name, and whose [Client.Header]
// sends API requests to it. The sandbox creates a namespace when it is first used.
func (c *Client) Namespace(name string) *Client {
	scoped := *c
	scoped.namespace = name
	return &scoped
}

// BaseURL is the API's base URL, e.g. http://localhost:4010/v1.
func (c *Client) BaseURL() string {
	return c.sandboxURL.JoinPath(apiPath).String()
}

// Header returns the headers of an API request in this client's namespace: Authorization with the
// API key, and X-Sandbox-Namespace unless the namespace is the default one.
func (c *Client) Header() http.Header {
	header := http.Header{}
	header.Set("Authorization", "Bearer "+c.apiKey)
	if c.namespace != "" {
		header.Set(NamespaceHeader, c.namespace)
	}
	return header
}

// ResetOption makes [Client.Reset] generate the pets, or start from a snapshot, instead of
// restoring the initial data.
type ResetOption func(*ResetJSONBody)

// WithSeed generates the pets from this seed.
func WithSeed(seed int) ResetOption {
	return func(b *ResetJSONBody) { b.Seed = &seed }
}

// WithCount sets how many pets to generate.
func WithCount(count int) ResetOption {
	return func(b *ResetJSONBody) { b.Count = &count }
}

// FromSnapshot starts the namespace from the pets and clock of the snapshot name, copy-on-write:
// no change of the namespace reaches the snapshot or another namespace. The sandbox refuses it
// together with [WithSeed] or [WithCount].
func FromSnapshot(name string) ResetOption {
	return func(b *ResetJSONBody) { b.Snapshot = name }
}

// Reset puts the namespace back to its initial data (or to generated pets, or to a snapshot's),
// and clears its journal, faults and clock.
func (c *Client) Reset(ctx context.Context, opts ...ResetOption) (StateSummary, error) {
	// Without options, no body at all (not a JSON null): the initial data.
	var body any
	if len(opts) > 0 {
		generate := &ResetJSONBody{}
		for _, opt := range opts {
			opt(generate)
		}
		body = generate
	}
	return call[StateSummary](ctx, c, "reset", http.MethodPost, "/reset", c.query(nil), body)
}

// ExportPets returns every pet of the namespace, in id order.
func (c *Client) ExportPets(ctx context.Context) ([]api.Pet, error) {
	return call[[]api.Pet](ctx, c, "exportPets", http.MethodGet, "/pets", c.query(nil), nil)
}

// ReplacePets replaces every pet of the namespace. The sandbox checks them all first: an invalid
// record or a repeated id gets an error and changes nothing.
func (c *Client) ReplacePets(ctx context.Context, pets []api.Pet) (StateSummary, error) {
	if pets == nil {
		pets = []api.Pet{} // an empty store, not a JSON null
	}
	return call[StateSummary](ctx, c, "replacePets", http.MethodPut, "/pets", c.query(nil), pets)
}

// ListRequests returns a page of the journal entries that match every field set in params,
// oldest first, with the count of all that match: the first 100 unless params.Limit (1..1000)
// says otherwise, from after params.After, the [JournalPage.Next] of the previous page.
func (c *Client) ListRequests(ctx context.Context, params *ListRequestsParams) (JournalPage, error) {
	return call[JournalPage](ctx, c, "listRequests", http.MethodGet, "/requests", c.query(params), nil)
}

// CountRequests returns how many journal entries match every field set in params: the journal's
// cheapest check (limit 0), no entry is sent.
func (c *Client) CountRequests(ctx context.Context, params *ListRequestsParams) (int, error) {
	query := c.query(params)
	query.Set("limit", "0")
	page, err := call[JournalPage](ctx, c, "listRequests", http.MethodGet, "/requests", query, nil)
	return page.Count, err
}

// AllRequests yields every journal entry that matches params, oldest first, fetching a page at a
// time as the loop goes on; a failed call is yielded as the error, and ends the loop.
//
//	for entry, err := range ns.AllRequests(ctx, &control.ListRequestsParams{OperationID: "createPet"}) {
//		require.NoError(t, err)
//		…
//	}
func (c *Client) AllRequests(ctx context.Context, params *ListRequestsParams) iter.Seq2[JournalEntry, error] {
	return func(yield func(JournalEntry, error) bool) {
		page := *cmp.Or(params, &ListRequestsParams{})
		for {
			answer, err := c.ListRequests(ctx, &page)
			if err != nil {
				yield(JournalEntry{}, err)
				return
			}
			for _, entry := range answer.Entries {
				if !yield(entry, nil) {
					return
				}
			}
			if answer.Next == 0 { // null: the last page
				return
			}
			page.After = answer.Next
		}
	}
}

// ClearRequests empties the namespace's journal.
func (c *Client) ClearRequests(ctx context.Context) (Cleared, error) {
	return call[Cleared](ctx, c, "clearRequests", http.MethodDelete, "/requests", c.query(nil), nil)
}

// ListUnmatchedRequests returns a page of the requests no operation matched, as [Client.ListRequests].
func (c *Client) ListUnmatchedRequests(ctx context.Context, params *ListUnmatchedRequestsParams) (JournalPage, error) {
	return call[JournalPage](ctx, c, "listUnmatchedRequests", http.MethodGet, "/requests/unmatched", c.query(params), nil)
}

// AddFault arms a fault on the authenticated calls of fault.OperationID in the namespace: it
// skips the first After of them, acts on the next Times (every one when 0), then stops.
func (c *Client) AddFault(ctx context.Context, fault NewFault) (Fault, error) {
	return call[Fault](ctx, c, "addFault", http.MethodPost, "/faults", c.query(nil), fault)
}

// ListFaults returns the namespace's faults, oldest first, with how often each has fired.
func (c *Client) ListFaults(ctx context.Context) (FaultList, error) {
	return call[FaultList](ctx, c, "listFaults", http.MethodGet, "/faults", c.query(nil), nil)
}

// ClearFaults removes every fault of the namespace.
func (c *Client) ClearFaults(ctx context.Context) (Cleared, error) {
	return call[Cleared](ctx, c, "clearFaults", http.MethodDelete, "/faults", c.query(nil), nil)
}

// GetClock returns the namespace's now.
func (c *Client) GetClock(ctx context.Context) (Clock, error) {
	return call[Clock](ctx, c, "getClock", http.MethodGet, "/clock", c.query(nil), nil)
}

// SetClock moves the namespace's clock to now; from there it runs at the real pace.
func (c *Client) SetClock(ctx context.Context, now time.Time) (Clock, error) {
	return call[Clock](ctx, c, "setClock", http.MethodPost, "/clock", c.query(nil), SetClockJSONBody{Now: now.UTC()})
}

// ResetClock returns the namespace's clock to real time.
func (c *Client) ResetClock(ctx context.Context) (Clock, error) {
	return call[Clock](ctx, c, "resetClock", http.MethodDelete, "/clock", c.query(nil), nil)
}

// ListNamespaces returns every namespace in memory, whichever namespace the client is bound to.
func (c *Client) ListNamespaces(ctx context.Context) (NamespaceList, error) {
	return call[NamespaceList](ctx, c, "listNamespaces", http.MethodGet, "/namespaces", nil, nil)
}

// DeleteNamespace deletes the namespace name with its pets (its data file too), journal, faults
// and clock, whichever namespace the client is bound to. Reading a namespace that does not exist
// answers 404: only a reset, a replace, a fault, a clock or an API request creates one.
func (c *Client) DeleteNamespace(ctx context.Context, name string) (Deleted, error) {
	return call[Deleted](ctx, c, "deleteNamespace", http.MethodDelete, "/namespaces/"+url.PathEscape(name), nil, nil)
}

// CreateSnapshot freezes the namespace's pets and clock under name, a snapshot that namespaces
// can start from ([FromSnapshot]). A snapshot never changes; its name is taken until it is deleted.
func (c *Client) CreateSnapshot(ctx context.Context, name string) (Snapshot, error) {
	// The namespace goes in the body here, not the query; omitted, as elsewhere, for the default one.
	body := NewSnapshot{Name: name, Namespace: c.namespace}
	return call[Snapshot](ctx, c, "createSnapshot", http.MethodPost, "/snapshots", nil, body)
}

// ListSnapshots returns every snapshot, oldest first, each with the namespaces that start from it,
// whichever namespace the client is bound to.
func (c *Client) ListSnapshots(ctx context.Context) (SnapshotList, error) {
	return call[SnapshotList](ctx, c, "listSnapshots", http.MethodGet, "/snapshots", nil, nil)
}

// DeleteSnapshot deletes the snapshot name, whichever namespace the client is bound to. The
// sandbox refuses (409, naming them) while namespaces start from it: reset them to other data or
// delete them first.
func (c *Client) DeleteSnapshot(ctx context.Context, name string) (SnapshotDeleted, error) {
	return call[SnapshotDeleted](ctx, c, "deleteSnapshot", http.MethodDelete, "/snapshots/"+url.PathEscape(name), nil, nil)
}

// GetCoverage reports what the namespace's requests covered of the API's contract: for
// each operation, the calls and each documented response exercised or not; the deprecated
// operations called; the unmatched and invalid requests. params may narrow it to a trace
// (TraceID) or widen it to every namespace in memory (All); nil reports the namespace's.
func (c *Client) GetCoverage(ctx context.Context, params *GetCoverageParams) (CoverageReport, error) {
	return call[CoverageReport](ctx, c, "getCoverage", http.MethodGet, "/coverage", c.query(params), nil)
}

// GetCoverageMarkdown returns the report of [Client.GetCoverage] as Markdown, a table for people
// (e.g. a CI job's summary).
func (c *Client) GetCoverageMarkdown(ctx context.Context, params *GetCoverageParams) (string, error) {
	query := c.query(params)
	query.Set("format", "markdown")
	answer, err := send(ctx, c, "getCoverage", http.MethodGet, "/coverage", query, nil, "text/markdown")
	return string(answer), err
}

// GetDrift reports how the sandbox's answers differed from the real API's (UPSTREAM, in
// UPSTREAM_MODE=compare): each difference, and counts per operation. Without an upstream its mode
// is "off" and it holds nothing.
func (c *Client) GetDrift(ctx context.Context) (DriftReport, error) {
	return call[DriftReport](ctx, c, "getDrift", http.MethodGet, "/drift", c.query(nil), nil)
}

// Verify checks the namespace's journal against the calls expected (of one trace alone when
// params has a TraceID). The answer says whether it passed: a failed verification is a result,
// not an error ([VerifyResult.AssertVerified] fails a test with it).
func (c *Client) Verify(ctx context.Context, request VerifyRequest, params *VerifyParams) (VerifyResult, error) {
	if request.Expectations == nil {
		request.Expectations = []Expectation{} // none, not a JSON null
	}
	return call[VerifyResult](ctx, c, "verify", http.MethodPost, "/verify", c.query(params), request)
}

// ExportPact returns the calls the namespace received as a Pact (specification V4), as JSON: one
// interaction per distinct request and response shape, with matchers from the spec and provider
// states that `animal-store-sandbox pact verify` restores. Write it to a file for a Pact broker.
// The consumer defaults to the namespace's name, the provider to the API's title.
func (c *Client) ExportPact(ctx context.Context, params *ExportPactParams) (json.RawMessage, error) {
	answer, err := send(ctx, c, "exportPact", http.MethodGet, "/pact", c.query(params), nil, "application/json")
	return json.RawMessage(answer), err
}

// Error is an answer of the control API other than a success: its status, and the code and
// message of its Error body.
type Error struct {
	// Operation is the operationId called, e.g. addFault.
	Operation  string
	StatusCode int
	// Code is the Error body's machine-readable code, e.g. invalid_body; "" when the body was
	// not an Error (then Message holds the body).
	Code    string
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("control API %s: %d %s: %s", e.Operation, e.StatusCode, e.Code, e.Message)
}

// query encodes params, a generated *…Params or nil, by its fields' form tags, leaving out those
// unset, with the client's namespace: the sandbox refuses a namespace together with all=true.
func (c *Client) query(params any) url.Values {
	query := url.Values{}
	if v := reflect.ValueOf(params); v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
		for i := range v.NumField() {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("form"), ",")
			switch value := v.Field(i).Interface().(type) {
			case time.Time:
				if !value.IsZero() {
					query.Set(name, value.UTC().Format(time.RFC3339Nano))
				}
			default:
				if !v.Field(i).IsZero() {
					query.Set(name, fmt.Sprint(value))
				}
			}
		}
	}
	query.Del("namespace")
	if c.namespace != "" && !query.Has("all") {
		query.Set("namespace", c.namespace)
	}
	return query
}

// call sends one control call and decodes its JSON answer into T, or returns an *Error.
func call[T any](ctx context.Context, c *Client, operation, method, path string, query url.Values, body any) (T, error) {
	var result T
	answer, err := send(ctx, c, operation, method, path, query, body, "application/json")
	if err != nil {
		return result, err
	}
	if err := json.Unmarshal(answer, &result); err != nil {
		return result, fmt.Errorf("control API %s: decode the answer: %w", operation, err)
	}
	return result, nil
}

// send sends one control call asking for the media type accept, and returns its successful
// answer, or an *Error.
func send(ctx context.Context, c *Client, operation, method, path string, query url.Values, body any, accept string) ([]byte, error) {
	target := c.sandboxURL.JoinPath(adminPath, path)
	target.RawQuery = query.Encode()

	var content io.Reader
	if body != nil {
		encoded, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("control API %s: encode the body: %w", operation, err)
		}
		content = bytes.NewReader(encoded)
	}
	req, err := http.NewRequestWithContext(ctx, method, target.String(), content)
	if err != nil {
		return nil, fmt.Errorf("control API %s: %w", operation, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.adminToken)
	req.Header.Set("Accept", accept)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}

	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("control API %s: %w", operation, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("control API %s: read the answer: %w", operation, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, answerError(operation, resp.StatusCode, answer)
	}
	return answer, nil
}

func answerError(operation string, status int, answer []byte) *Error {
	var body struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(answer, &body); err == nil && body.Code != "" {
		return &Error{Operation: operation, StatusCode: status, Code: body.Code, Message: body.Message}
	}
	text := string(answer)
	if len(text) > maxErrorBody {
		text = text[:maxErrorBody] + "…"
	}
	return &Error{Operation: operation, StatusCode: status, Message: strings.TrimSpace(text)}
}
