package control

import (
	"encoding/json"
	"fmt"
	"time"
)

// PetStatus is the availability of a pet.
type PetStatus string

const (
	PetAvailable PetStatus = "available"
	PetPending   PetStatus = "pending"
	PetSold      PetStatus = "sold"
)

// Pet is a pet of the Animal Store API, as exportPets gives it and replacePets takes it.
type Pet struct {
	ID         int64     `json:"id"`
	Name       string    `json:"name"`
	CategoryID int64     `json:"categoryId"`
	Status     PetStatus `json:"status,omitempty"`
}

// StateSummary is the answer of reset and replacePets.
type StateSummary struct {
	Namespace string `json:"namespace"`
	// Pets is how many pets the namespace now holds.
	Pets int `json:"pets"`
}

// Cleared is the answer of clearRequests and clearFaults.
type Cleared struct {
	Namespace string `json:"namespace"`
	// Cleared is how many entries were removed.
	Cleared int `json:"cleared"`
}

// Clock is a namespace's notion of now.
type Clock struct {
	Namespace string    `json:"namespace"`
	Now       time.Time `json:"now"`
	// Real is true when the clock follows real time.
	Real bool `json:"real"`
}

// RequestFilter selects journal entries for ListRequests; every field set must match.
type RequestFilter struct {
	// Method is an HTTP method, any case.
	Method string
	// Path is exact, e.g. /v1/pets/3, or a prefix when it ends with *.
	Path string
	// OperationID is the operation the request matched, or "unmatched".
	OperationID string
	// Status is the status answered; 0 matches any.
	Status int
	// Since keeps the requests received at or after it; the zero time keeps all.
	Since time.Time
	// TraceID keeps the requests whose W3C traceparent carried this trace id (32 lowercase hex
	// digits), whoever made them.
	TraceID string
}

// JournalPage is a page of the matching journal entries, oldest first.
type JournalPage struct {
	// Count is how many entries match the filter: the page's and all others.
	Count   int            `json:"count"`
	Entries []JournalEntry `json:"entries"`
	// Next is the id to pass to [After] for the next page; nil on the last page (and for Limit(0)).
	Next *int64 `json:"next"`
	// UnauthenticatedDropped counts the requests without a valid API key dropped since the journal
	// was cleared: it keeps the latest 100 of them apart, so that a flood of them drops no other.
	UnauthenticatedDropped int `json:"unauthenticatedDropped"`
}

// JournalEntry is one request a namespace received.
type JournalEntry struct {
	ID        int64     `json:"id"`
	Time      time.Time `json:"time"`
	Namespace string    `json:"namespace"`
	Method    string    `json:"method"`
	Path      string    `json:"path"`
	Query     Query     `json:"query"`
	// Headers has Authorization (and any configured key anywhere) redacted.
	Headers map[string]string `json:"headers"`
	// Body is the JSON body as sent (a JSON string when it was not JSON), null when there was none.
	Body json.RawMessage `json:"body"`
	// Status is 0 when a fault closed the connection without an answer.
	Status     int     `json:"status"`
	DurationMs float64 `json:"durationMs"`
	// OperationID is the operation matched, or "unmatched".
	OperationID string `json:"operationId"`
	// Fault is the fault or Prefer that shaped the answer, "" when none did.
	Fault string `json:"fault"`
	// Error is the code and message of the Error body answered; nil for any other answer.
	Error *AnsweredError `json:"error"`
	// TraceID is the trace id of the request's W3C traceparent, "" when it sent none valid.
	TraceID string `json:"traceId,omitempty"`
}

// AnsweredError is the Error body a request was answered with.
type AnsweredError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Query holds a journal entry's query parameters: each name with its values, as url.Values does.
type Query map[string][]string

// Get returns the first value of name, or "" when there is none.
func (q Query) Get(name string) string {
	if values := q[name]; len(values) > 0 {
		return values[0]
	}
	return ""
}

// UnmarshalJSON reads a parameter given once as a string and one given several times as an array.
func (q *Query) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*q = make(Query, len(raw))
	for name, value := range raw {
		var one string
		if err := json.Unmarshal(value, &one); err == nil {
			(*q)[name] = []string{one}
			continue
		}
		var many []string
		if err := json.Unmarshal(value, &many); err != nil {
			return fmt.Errorf("query parameter %q: %w", name, err)
		}
		(*q)[name] = many
	}
	return nil
}

// FaultKind is a failure below HTTP status codes.
type FaultKind string

const (
	// ConnectionReset closes the connection with a TCP reset.
	ConnectionReset FaultKind = "connection-reset"
	// EmptyResponse closes the connection without a byte of answer.
	EmptyResponse FaultKind = "empty-response"
	// MalformedBody answers with a body that is not valid JSON.
	MalformedBody FaultKind = "malformed-body"
)

// NewFault describes a fault for AddFault: it needs Status, DelayMs or Fault.
type NewFault struct {
	// OperationID is an operationId of the Animal Store API, e.g. listPets.
	OperationID string `json:"operationId"`
	// Status answers with this status (400..599) and the Error body.
	Status int `json:"status,omitempty"`
	// DelayMs waits this long before answering.
	DelayMs int       `json:"delayMs,omitempty"`
	Fault   FaultKind `json:"fault,omitempty"`
	// Times is how many calls the fault acts on; 0 means every call.
	Times int `json:"times,omitempty"`
	// After is how many matching calls pass untouched first.
	After int `json:"after,omitempty"`
}

// Fault is an armed fault with how often it has matched and acted.
type Fault struct {
	NewFault
	ID int64 `json:"id"`
	// Seen counts the matching calls so far.
	Seen int `json:"seen"`
	// Fired counts the calls the fault has acted on.
	Fired int `json:"fired"`
}

// FaultList is a namespace's faults, oldest first.
type FaultList struct {
	Count  int     `json:"count"`
	Faults []Fault `json:"faults"`
}

// NamespaceList is the namespaces in memory, least recently used first.
type NamespaceList struct {
	// Max is how many namespaces the sandbox keeps before it evicts the least recently used.
	Max        int              `json:"max"`
	Namespaces []NamespaceUsage `json:"namespaces"`
}

// Deleted is the answer of DeleteNamespace.
type Deleted struct {
	Namespace string `json:"namespace"`
	Deleted   bool   `json:"deleted"`
}

// Snapshot is a namespace's pets and clock frozen under a name, which [FromSnapshot] starts a
// namespace from.
type Snapshot struct {
	Name string `json:"name"`
	// Namespace is the namespace it was taken from.
	Namespace string `json:"namespace"`
	// Pets is how many pets it holds.
	Pets int `json:"pets"`
	// Clock is where a namespace reset to it starts its clock; nil when the namespace's clock
	// followed real time.
	Clock     *time.Time `json:"clock"`
	CreatedAt time.Time  `json:"createdAt"`
	// Forks are the namespaces that start from it: while there are any, it cannot be deleted.
	Forks []string `json:"forks"`
}

// SnapshotList is the snapshots, oldest first.
type SnapshotList struct {
	Count     int        `json:"count"`
	Snapshots []Snapshot `json:"snapshots"`
}

// SnapshotDeleted is the answer of DeleteSnapshot.
type SnapshotDeleted struct {
	Snapshot string `json:"snapshot"`
	Deleted  bool   `json:"deleted"`
}

// NamespaceUsage is one namespace with the sizes of its journal and fault list.
type NamespaceUsage struct {
	Name     string `json:"name"`
	Requests int    `json:"requests"`
	Faults   int    `json:"faults"`
}

// DriftReport is how the sandbox's answers differed from the real API's ([Client.GetDrift]).
type DriftReport struct {
	Namespace string `json:"namespace"`
	// Upstream is the real API's base URL, or nil without UPSTREAM.
	Upstream *string `json:"upstream"`
	// Mode is compare, record, passthrough, or off without UPSTREAM.
	Mode     string `json:"mode"`
	Compared int    `json:"compared"`
	// Skipped counts requests not compared: unsafe ones, or past the queue's bound.
	Skipped     int                       `json:"skipped"`
	Count       int                       `json:"count"`
	Operations  map[string]OperationDrift `json:"operations"`
	Differences []Drift                   `json:"differences"`
}

// OperationDrift counts one operation's requests compared and the differences found.
type OperationDrift struct {
	Compared    int `json:"compared"`
	Differences int `json:"differences"`
}

// Drift is one difference: the request, a JSON pointer into the answer, both values and its kind.
type Drift struct {
	OperationID string `json:"operationId"`
	Request     struct {
		Method string `json:"method"`
		Target string `json:"target"`
	} `json:"request"`
	Pointer  string `json:"pointer"`
	Kind     string `json:"kind"`
	Sandbox  any    `json:"sandbox"`
	Upstream any    `json:"upstream"`
	Time     string `json:"time"`
}
