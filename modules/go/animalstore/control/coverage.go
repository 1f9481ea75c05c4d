package control

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// CoverageReport is what the requests covered of the Animal Store API's contract, the answer of
// GetCoverage. Every call is counted as it is answered, whatever the journal keeps: a namespace's
// since it was made, reset or its journal cleared; with AllNamespaces, the whole run's since the
// start, namespaces deleted or evicted included.
type CoverageReport struct {
	// ReportVersion is 1; a new version may add fields, never change one's meaning.
	ReportVersion int       `json:"reportVersion"`
	GeneratedAt   time.Time `json:"generatedAt"`
	// Namespace is the namespace reported on; "" when the report spans every namespace.
	Namespace string `json:"namespace"`
	// Namespaces are the namespaces whose journals were read.
	Namespaces []string            `json:"namespaces"`
	Summary    CoverageSummary     `json:"summary"`
	Operations []OperationCoverage `json:"operations"`
	// DeprecatedCalls are the deprecated operations called, with their sunset and replacement.
	DeprecatedCalls []DeprecatedCall `json:"deprecatedCalls"`
	// UnstableCalls are the experimental or beta operations called.
	UnstableCalls []UnstableCall `json:"unstableCalls"`
	// Unmatched are the requests no operation matched, by method, path and status.
	Unmatched UnmatchedRequests `json:"unmatched"`
	// Invalid are the requests an operation refused for breaking the spec (400, 413, 415), not
	// forced by a fault.
	Invalid InvalidRequests `json:"invalid"`
}

// CoverageSummary is a report's totals.
type CoverageSummary struct {
	// Calls counts the journal entries read, unmatched ones included.
	Calls      int `json:"calls"`
	Operations int `json:"operations"`
	// Responses counts the documented responses, a 400 once per Error code the sandbox answers.
	Responses int `json:"responses"`
	// Exercised counts the documented responses exercised at least once.
	Exercised       int `json:"exercised"`
	Unmatched       int `json:"unmatched"`
	Invalid         int `json:"invalid"`
	DeprecatedCalls int `json:"deprecatedCalls"`
	UnstableCalls   int `json:"unstableCalls"`
	// UnauthenticatedDropped counts the requests without a valid API key that the journals in
	// memory no longer hold (each keeps the latest of them apart): counted all the same.
	UnauthenticatedDropped int `json:"unauthenticatedDropped"`
	// JournalDropped counts the entries the journals dropped (JOURNAL_SIZE): counted all the same.
	JournalDropped int `json:"journalDropped"`
	// NamespacesDeleted and NamespacesEvicted, with AllNamespaces, count those gone since the
	// start; their calls are counted all the same.
	NamespacesDeleted int `json:"namespacesDeleted"`
	NamespacesEvicted int `json:"namespacesEvicted"`
}

// OperationCoverage is the coverage of one operation of the API.
type OperationCoverage struct {
	OperationID string `json:"operationId"`
	Method      string `json:"method"`
	// Path has the API's base path, e.g. /v1/pets/{petId}.
	Path string `json:"path"`
	// Stability is experimental, beta or stable.
	Stability  string `json:"stability"`
	Deprecated bool   `json:"deprecated"`
	// Sunset is when a deprecated operation goes away; nil when it has no date.
	Sunset *time.Time `json:"sunset"`
	// Replacement is the path to use instead, with the base path; "" when there is none.
	Replacement string `json:"replacement"`
	Calls       int    `json:"calls"`
	// Responses are the documented responses in the spec's order, a 400 once per Error code.
	Responses []ResponseCoverage `json:"responses"`
	// Undocumented are the answers no documented response covers.
	Undocumented []UndocumentedAnswer `json:"undocumented"`
	// Unanswered counts the calls a fault closed without an answer.
	Unanswered int                 `json:"unanswered"`
	Parameters []ParameterCoverage `json:"parameters"`
}

// ResponseCoverage is one documented response of an operation.
type ResponseCoverage struct {
	// Status is as the spec writes it: 201, 400, default.
	Status string `json:"status"`
	// Code is a 400's Error code; "" for other statuses.
	Code string `json:"code"`
	// Label names the response, e.g. "400 invalid_body".
	Label     string `json:"label"`
	Exercised bool   `json:"exercised"`
	Calls     int    `json:"calls"`
	// Forced counts the calls answered by a fault or a Prefer header.
	Forced int `json:"forced"`
}

// UndocumentedAnswer is an answer no documented response covers, e.g. a 410 after the sunset.
type UndocumentedAnswer struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
	Calls  int    `json:"calls"`
}

// ParameterCoverage is a query parameter: the values worth trying, sent or not, and the others sent.
type ParameterCoverage struct {
	Name   string           `json:"name"`
	Values []ParameterValue `json:"values"`
	Others []OtherValue     `json:"others"`
}

// ParameterValue is a value worth trying: an enum value, a bound, the default or none.
type ParameterValue struct {
	// Value is nil for the parameter left out.
	Value *string `json:"value"`
	// Kind is enum, minimum, maximum, default or omitted.
	Kind string `json:"kind"`
	// Label names it, e.g. "default (20)".
	Label string `json:"label"`
	Calls int    `json:"calls"`
}

// OtherValue is a value sent that is none of the values worth trying.
type OtherValue struct {
	Value string `json:"value"`
	Calls int    `json:"calls"`
}

// DeprecatedCall counts the calls of a deprecated operation.
type DeprecatedCall struct {
	OperationID string `json:"operationId"`
	Method      string `json:"method"`
	Path        string `json:"path"`
	Calls       int    `json:"calls"`
	// Sunset is when the operation goes away; nil when it has no date.
	Sunset *time.Time `json:"sunset"`
	// Replacement is the path to use instead; "" when there is none.
	Replacement string `json:"replacement"`
}

// UnstableCall counts the calls of an experimental or beta operation.
type UnstableCall struct {
	OperationID string `json:"operationId"`
	Method      string `json:"method"`
	Path        string `json:"path"`
	Stability   string `json:"stability"`
	Calls       int    `json:"calls"`
}

// UnmatchedRequests are the requests no operation matched.
type UnmatchedRequests struct {
	Count    int                `json:"count"`
	Requests []UnmatchedRequest `json:"requests"`
}

// UnmatchedRequest counts the requests of one method, path and status that no operation matched.
type UnmatchedRequest struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	// Status is 0 when a fault closed the connection without an answer.
	Status int `json:"status"`
	Calls  int `json:"calls"`
}

// InvalidRequests are the requests refused for breaking the spec.
type InvalidRequests struct {
	Count    int              `json:"count"`
	Requests []InvalidRequest `json:"requests"`
}

// InvalidRequest is one refused request, with the code and message of its Error body.
type InvalidRequest struct {
	// ID is the request's journal entry.
	ID          int64  `json:"id"`
	Namespace   string `json:"namespace"`
	OperationID string `json:"operationId"`
	Method      string `json:"method"`
	Path        string `json:"path"`
	Status      int    `json:"status"`
	Code        string `json:"code"`
	Message     string `json:"message"`
}

// Operation returns the coverage of the operation operationID, and whether the API has it.
func (r CoverageReport) Operation(operationID string) (OperationCoverage, bool) {
	for _, op := range r.Operations {
		if op.OperationID == operationID {
			return op, true
		}
	}
	return OperationCoverage{}, false
}

// Expectation is a call a test expected, for Verify: the journal entries of OperationID whose
// body contains Body and whose headers include Headers are counted against Count, or Min and Max
// (at least one when none is set). Build one with [Expect]:
//
//	control.Expect("createPet").Times(1).WithBody(map[string]any{"categoryId": 3})
type Expectation struct {
	// OperationID is an operationId of the API, or "unmatched".
	OperationID string `json:"operationId"`
	Count       *int   `json:"count,omitempty"`
	Min         *int   `json:"min,omitempty"`
	Max         *int   `json:"max,omitempty"`
	// Body is a JSON value the request body must contain: objects as subsets, arrays element by
	// element, anything else equal, type included (3 is not "3"). Nil sets no condition.
	Body any `json:"body,omitempty"`
	// Headers are headers the call must carry: names in any case, values exact.
	Headers map[string]string `json:"headers,omitempty"`
}

// Expect expects at least one call of operationID, until a count or bounds are set.
func Expect(operationID string) Expectation {
	return Expectation{OperationID: operationID}
}

// Times expects exactly n matching calls.
func (e Expectation) Times(n int) Expectation {
	e.Count, e.Min, e.Max = &n, nil, nil
	return e
}

// Never expects no matching call.
func (e Expectation) Never() Expectation {
	return e.Times(0)
}

// AtLeast expects n matching calls or more.
func (e Expectation) AtLeast(n int) Expectation {
	e.Count, e.Min = nil, &n
	return e
}

// AtMost expects n matching calls or fewer.
func (e Expectation) AtMost(n int) Expectation {
	e.Count, e.Max = nil, &n
	return e
}

// WithBody sets the JSON value the request body must contain.
func (e Expectation) WithBody(body any) Expectation {
	e.Body = body
	return e
}

// WithHeader adds a header the call must carry.
func (e Expectation) WithHeader(name, value string) Expectation {
	headers := make(map[string]string, len(e.Headers)+1)
	for k, v := range e.Headers {
		headers[k] = v
	}
	headers[name] = value
	e.Headers = headers
	return e
}

// VerifyRequest is what Verify checks: the expectations, and whether other calls are allowed.
type VerifyRequest struct {
	Expectations []Expectation `json:"expectations"`
	// Strict makes every call no expectation matched fail the verification.
	Strict bool `json:"strict"`
	// TraceID, when set, counts only the calls of this trace (the trace id of their W3C
	// traceparent): it goes in the query, not the body.
	TraceID string `json:"-"`
}

// VerifyResult is the answer of Verify.
type VerifyResult struct {
	Namespace string `json:"namespace"`
	Passed    bool   `json:"passed"`
	// Incomplete is true when the answer depends on entries the journal dropped: then it did not pass.
	Incomplete     bool `json:"incomplete"`
	JournalDropped int  `json:"journalDropped"`
	Strict         bool `json:"strict"`
	// Checked counts the journal entries read.
	Checked      int                 `json:"checked"`
	Expectations []ExpectationResult `json:"expectations"`
	// Unexpected are, in strict mode, the calls no expectation matched.
	Unexpected []EntrySummary `json:"unexpected"`
	// Message is the outcome for people, one line per failed expectation or unexpected call.
	Message string `json:"message"`
}

// ExpectationResult is the outcome of one expectation.
type ExpectationResult struct {
	// Index is the expectation's position in the request.
	Index       int    `json:"index"`
	OperationID string `json:"operationId"`
	Passed      bool   `json:"passed"`
	// Incomplete is true when its outcome depends on calls of its operation the journal dropped:
	// then it did not pass. One without body or headers is decided by the counts, never incomplete.
	Incomplete bool `json:"incomplete"`
	// Expected is the count wanted, in words, e.g. "exactly 1".
	Expected string `json:"expected"`
	// Matched counts the journal entries that matched its operation, body and headers.
	Matched        int     `json:"matched"`
	MatchedEntries []int64 `json:"matchedEntries"`
	// Closest are, when it failed for want of a match, the calls of its operation that came
	// closest, fewest differences first (at most 3).
	Closest []Closest `json:"closest"`
	Message string    `json:"message"`
}

// Closest is a call that came close to an expectation, and how it differs.
type Closest struct {
	Entry       EntrySummary `json:"entry"`
	Differences []Difference `json:"differences"`
}

// Difference is one field where a call differs from an expectation.
type Difference struct {
	// In is body or header.
	In string `json:"in"`
	// Pointer is a JSON Pointer into the body ("" for the whole body), or the header's name.
	Pointer  string          `json:"pointer"`
	Expected json.RawMessage `json:"expected"`
	// Actual is the value found there; nil when there was none (a JSON null is "null").
	Actual json.RawMessage `json:"actual,omitempty"`
	// Message reads e.g. createPet body /categoryId: expected 3, got "3".
	Message string `json:"message"`
}

// EntrySummary names a journal entry.
type EntrySummary struct {
	ID     int64  `json:"id"`
	Method string `json:"method"`
	Path   string `json:"path"`
	// Status is 0 when a fault closed the connection without an answer.
	Status      int    `json:"status"`
	OperationID string `json:"operationId"`
}

// String reads e.g. #4 GET /v1/pets → 200 (listPets).
func (e EntrySummary) String() string {
	status := "no answer"
	if e.Status != 0 {
		status = strconv.Itoa(e.Status)
	}
	return fmt.Sprintf("#%d %s %s → %s (%s)", e.ID, e.Method, e.Path, status, e.OperationID)
}
