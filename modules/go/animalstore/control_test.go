package animalstore_test

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/api"
	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

// The control client against the shared sandbox, each test in a namespace of its own.

// journalWait bounds the wait for a journal entry: the sandbox records a request once its
// answer is sent, so the entry may come a moment after the client has the answer.
const journalWait = 5 * time.Second

func TestControl_reset(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	ctx := t.Context()
	initial, err := ns.ExportPets(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, initial)

	resp, answer := callAPI(t, ns, http.MethodPost, "/pets", map[string]any{"name": "Temporary", "categoryId": 1})
	require.Equal(t, http.StatusCreated, resp.StatusCode, "answer: %s", answer)
	created := decode[api.Pet](t, answer)

	summary, err := ns.Reset(ctx)
	require.NoError(t, err)
	require.Equal(t, len(initial), summary.Pets)
	resp, _ = callAPI(t, ns, http.MethodGet, "/pets/"+strconv.FormatInt(created.ID, 10), nil)
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "the created pet is gone")
	pets, err := ns.ExportPets(ctx)
	require.NoError(t, err)
	require.Equal(t, initial, pets)

	summary, err = ns.Reset(ctx, control.WithSeed(3), control.WithCount(4))
	require.NoError(t, err)
	require.Equal(t, 4, summary.Pets)
	generated, err := ns.ExportPets(ctx)
	require.NoError(t, err)
	require.Len(t, generated, 4)
	_, err = ns.Reset(ctx, control.WithSeed(3), control.WithCount(4))
	require.NoError(t, err)
	again, err := ns.ExportPets(ctx)
	require.NoError(t, err)
	require.Equal(t, generated, again, "the same seed gives the same pets")
}

func TestControl_replacePets(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	ctx := t.Context()
	pets := []api.Pet{
		{ID: 10, Name: "Rex", CategoryID: 1, Status: api.Pending},
		{ID: 11, Name: "Tom", CategoryID: 2, Status: api.Sold},
	}

	summary, err := ns.ReplacePets(ctx, pets)
	require.NoError(t, err)
	require.Equal(t, control.StateSummary{Namespace: namespaceName(t, ""), Pets: 2}, summary)
	exported, err := ns.ExportPets(ctx)
	require.NoError(t, err)
	require.Equal(t, pets, exported)

	_, err = ns.ReplacePets(ctx, []api.Pet{pets[0], pets[0]})
	var refused *control.Error
	require.ErrorAs(t, err, &refused)
	require.Equal(t, http.StatusBadRequest, refused.StatusCode)
	require.Equal(t, "invalid_body", refused.Code)
	exported, err = ns.ExportPets(ctx)
	require.NoError(t, err)
	require.Equal(t, pets, exported, "a refused replacement changes nothing")
}

func TestControl_journal(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	ctx := t.Context()

	resp, _ := callAPI(t, ns, http.MethodGet, "/pets?limit=5", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	resp, _ = callAPI(t, ns, http.MethodPost, "/pets", map[string]any{"name": "Journaled", "categoryId": 2})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	resp, _ = callAPI(t, ns, http.MethodGet, "/no-such-path", nil)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	require.EventuallyWithT(t, func(c *assert.CollectT) {
		all, err := ns.ListRequests(ctx, control.RequestFilter{})
		require.NoError(c, err)
		require.Equal(c, 3, all.Count)
	}, journalWait, 20*time.Millisecond)

	listed, err := ns.ListRequests(ctx, control.RequestFilter{OperationID: "listPets"})
	require.NoError(t, err)
	require.Equal(t, 1, listed.Count)
	entry := listed.Entries[0]
	require.Equal(t, http.MethodGet, entry.Method)
	require.Equal(t, "/v1/pets", entry.Path)
	limit, err := entry.Query["limit"].AsJournalEntryQuery0()
	require.NoError(t, err)
	require.Equal(t, "5", limit)
	require.Equal(t, http.StatusOK, entry.Status)
	require.Equal(t, "Bearer [REDACTED]", entry.Headers["authorization"])
	require.WithinDuration(t, time.Now(), entry.Time, time.Minute)

	created, err := ns.ListRequests(ctx, control.RequestFilter{Method: "post", Path: "/v1/pets", Status: http.StatusCreated})
	require.NoError(t, err)
	require.Equal(t, 1, created.Count)
	require.Equal(t, "createPet", created.Entries[0].OperationID)
	require.Equal(t, map[string]any{"name": "Journaled", "categoryId": 2.0}, created.Entries[0].Body)

	unmatched, err := ns.ListUnmatchedRequests(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, unmatched.Count)
	require.Equal(t, "/v1/no-such-path", unmatched.Entries[0].Path)

	later, err := ns.ListRequests(ctx, control.RequestFilter{Since: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	require.Zero(t, later.Count)

	cleared, err := ns.ClearRequests(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, cleared.Cleared)
	empty, err := ns.ListRequests(ctx, control.RequestFilter{})
	require.NoError(t, err)
	require.Zero(t, empty.Count)
}

func TestControl_journalPages(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	ctx := t.Context()
	// 130 reads of pet 1, one of pet 2 after every tenth: 143 getPets, 13 of them of pet 2.
	for i := 1; i <= 130; i++ {
		resp, _ := callAPI(t, ns, http.MethodGet, "/pets/1", nil)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		if i%10 == 0 {
			callAPI(t, ns, http.MethodGet, "/pets/2", nil)
		}
	}
	getPets := control.RequestFilter{OperationID: "getPet"}

	first, err := ns.ListRequests(ctx, getPets)
	require.NoError(t, err)
	require.Equal(t, 143, first.Count, "the count of every match")
	require.Len(t, first.Entries, 100, "the default page")
	require.Equal(t, first.Entries[99].ID, first.Next)
	second, err := ns.ListRequests(ctx, getPets, control.After(first.Next))
	require.NoError(t, err)
	require.Equal(t, 143, second.Count)
	require.Len(t, second.Entries, 43)
	require.Zero(t, second.Next, "the last page")
	var ids []int
	for _, entry := range append(first.Entries, second.Entries...) {
		ids = append(ids, entry.ID)
	}
	require.IsIncreasing(t, ids, "every entry once, oldest first")

	small, err := ns.ListRequests(ctx, control.RequestFilter{Path: "/v1/pets/2"}, control.Limit(5))
	require.NoError(t, err)
	require.Equal(t, 13, small.Count)
	require.Len(t, small.Entries, 5)
	counted, err := ns.ListRequests(ctx, getPets, control.Limit(0))
	require.NoError(t, err)
	require.Equal(t, control.JournalPage{Count: 143, Entries: []control.JournalEntry{}}, counted)

	for filter, want := range map[control.RequestFilter]int{getPets: 143, {Path: "/v1/pets/2"}: 13, {OperationID: "createPet"}: 0} {
		count, err := ns.CountRequests(ctx, filter)
		require.NoError(t, err)
		require.Equal(t, want, count, "CountRequests(%+v)", filter)
	}

	var walked []int
	for entry, err := range ns.AllRequests(ctx, getPets) {
		require.NoError(t, err)
		walked = append(walked, entry.ID)
	}
	require.Equal(t, ids, walked, "AllRequests walks every page")

	for range 3 {
		callAPI(t, ns, http.MethodGet, "/nowhere", nil)
	}
	unmatched, err := ns.ListUnmatchedRequests(ctx, control.Limit(2))
	require.NoError(t, err)
	require.Equal(t, 3, unmatched.Count)
	require.Len(t, unmatched.Entries, 2)
	rest, err := ns.ListUnmatchedRequests(ctx, control.After(unmatched.Next))
	require.NoError(t, err)
	require.Len(t, rest.Entries, 1)

	_, err = ns.ListRequests(ctx, getPets, control.Limit(1001))
	var refused *control.Error
	require.ErrorAs(t, err, &refused)
	require.Equal(t, http.StatusBadRequest, refused.StatusCode)
	require.Equal(t, "invalid_parameter", refused.Code)
	require.Contains(t, refused.Message, "limit")
}

func TestControl_fault(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	ctx := t.Context()

	fault, err := ns.AddFault(ctx, control.NewFault{OperationID: "listPets", Status: http.StatusServiceUnavailable, Times: 1})
	require.NoError(t, err)
	require.Equal(t, []any{"listPets", http.StatusServiceUnavailable, 1}, []any{fault.OperationID, fault.Status, fault.Times})
	require.Zero(t, fault.Fired)

	resp, answer := callAPI(t, ns, http.MethodGet, "/pets", nil)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Equal(t, http.StatusServiceUnavailable, decode[api.Error](t, answer).Status)
	resp, _ = callAPI(t, ns, http.MethodGet, "/pets", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "the fault acted once")

	faults, err := ns.ListFaults(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, faults.Count)
	require.Equal(t, fault.ID, faults.Faults[0].ID)
	require.Equal(t, 1, faults.Faults[0].Fired)
	require.Equal(t, 2, faults.Faults[0].Seen)

	cleared, err := ns.ClearFaults(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, cleared.Cleared)
	faults, err = ns.ListFaults(ctx)
	require.NoError(t, err)
	require.Zero(t, faults.Count)
}

func TestControl_clock(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	ctx := t.Context()
	getPet := "/pets/1"
	resp, _ := callAPI(t, ns, http.MethodGet, getPet, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)

	clock, err := ns.GetClock(ctx)
	require.NoError(t, err)
	require.True(t, clock.Real)

	sunset := time.Date(2030, time.December, 5, 0, 0, 0, 0, time.UTC)
	clock, err = ns.SetClock(ctx, sunset)
	require.NoError(t, err)
	require.False(t, clock.Real)
	require.WithinRange(t, clock.Now, sunset, sunset.Add(time.Minute))
	resp, answer := callAPI(t, ns, http.MethodGet, getPet, nil)
	require.Equal(t, http.StatusGone, resp.StatusCode, "getPet is gone at its sunset")
	require.Equal(t, "gone", decode[api.Error](t, answer).Code)

	clock, err = ns.ResetClock(ctx)
	require.NoError(t, err)
	require.True(t, clock.Real)
	resp, _ = callAPI(t, ns, http.MethodGet, getPet, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestControl_namespacesAreIsolated(t *testing.T) {
	t.Parallel()
	a, b := testNamespace(t, "a"), testNamespace(t, "b")
	ctx := t.Context()

	resp, answer := callAPI(t, a, http.MethodPost, "/pets", map[string]any{"name": "Only In A", "categoryId": 3})
	require.Equal(t, http.StatusCreated, resp.StatusCode, "answer: %s", answer)
	path := "/pets/" + strconv.FormatInt(decode[api.Pet](t, answer).ID, 10)

	resp, _ = callAPI(t, a, http.MethodGet, path, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	resp, _ = callAPI(t, b, http.MethodGet, path, nil)
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "b does not see a's pet")

	aPets, err := a.ExportPets(ctx)
	require.NoError(t, err)
	bPets, err := b.ExportPets(ctx)
	require.NoError(t, err)
	require.Len(t, aPets, len(bPets)+1)

	listed, err := a.ListNamespaces(ctx)
	require.NoError(t, err)
	var names []string
	for _, ns := range listed.Namespaces {
		names = append(names, ns.Name)
	}
	require.Subset(t, names, []string{namespaceName(t, "a"), namespaceName(t, "b")})
}

func TestControl_deleteNamespace(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	ctx := t.Context()
	name := namespaceName(t, "")

	deleted, err := ns.DeleteNamespace(ctx, name)
	require.NoError(t, err)
	require.Equal(t, control.Deleted{Namespace: name, Deleted: true}, deleted)

	// Reading a namespace that does not exist is a 404: it never creates one.
	_, err = ns.ListRequests(ctx, control.RequestFilter{})
	var refused *control.Error
	require.ErrorAs(t, err, &refused)
	require.Equal(t, http.StatusNotFound, refused.StatusCode)
	_, err = ns.DeleteNamespace(ctx, name)
	require.ErrorAs(t, err, &refused)
	require.Equal(t, http.StatusNotFound, refused.StatusCode)
}

func TestControl_errors(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	ctx := t.Context()

	_, err := ns.AddFault(ctx, control.NewFault{OperationID: "noSuchOperation", Status: 500})
	var refused *control.Error
	require.ErrorAs(t, err, &refused)
	require.Equal(t, "addFault", refused.Operation)
	require.Equal(t, http.StatusBadRequest, refused.StatusCode)
	require.Equal(t, "invalid_body", refused.Code)
	require.Contains(t, refused.Message, "operationId")

	// API keys do not open the control API.
	ctr := sharedSandbox(t)
	withKey, err := ctr.Control(ctx, control.WithAdminToken(ctr.APIKey()))
	require.NoError(t, err)
	_, err = withKey.GetClock(ctx)
	require.True(t, errors.As(err, &refused), "error: %v", err)
	require.Equal(t, http.StatusUnauthorized, refused.StatusCode)
	require.Equal(t, "unauthorized", refused.Code)
}

func TestControl_newAgainstAnyURL(t *testing.T) {
	t.Parallel()
	ctr := sharedSandbox(t)
	endpoint, err := ctr.PortEndpoint(t.Context(), "4010/tcp", "http")
	require.NoError(t, err)

	// A sandbox started any other way is reached by its root URL alone.
	admin, err := control.New(endpoint+"/", control.WithAdminToken(sharedAdminToken), control.WithAPIKey(sharedAPIKey))
	require.NoError(t, err)
	require.Equal(t, endpoint+"/v1", admin.BaseURL())
	clock, err := admin.GetClock(t.Context())
	require.NoError(t, err)
	require.Equal(t, "default", clock.Namespace)

	_, err = control.New("localhost:4010")
	require.ErrorContains(t, err, "not an http(s) URL with a host")
}

func TestControl_snapshots(t *testing.T) {
	t.Parallel()
	setup, first, second := testNamespace(t, "setup"), testNamespace(t, "a"), testNamespace(t, "b")
	ctx := t.Context()
	// Unique as the namespace's name is; snapshot names never meet namespace names.
	name := namespaceName(t, "setup")
	refusal := func(t *testing.T, err error) *control.Error {
		t.Helper()
		var refused *control.Error
		require.ErrorAs(t, err, &refused)
		return refused
	}

	resp, answer := callAPI(t, setup, http.MethodPost, "/pets", map[string]any{"name": "Snapshot Sam", "categoryId": 1})
	require.Equal(t, http.StatusCreated, resp.StatusCode, "answer: %s", answer)
	fixture := decode[api.Pet](t, answer)
	// Before getPet's sunset (2030-12-05), after which it answers 410.
	frozenAt := time.Date(2029, 6, 1, 12, 0, 0, 0, time.UTC)
	_, err := setup.SetClock(ctx, frozenAt)
	require.NoError(t, err)
	frozen, err := setup.ExportPets(ctx)
	require.NoError(t, err)
	require.Contains(t, frozen, fixture)

	snapshot, err := setup.CreateSnapshot(ctx, name)
	require.NoError(t, err)
	require.Equal(t, name, snapshot.Name)
	require.Equal(t, namespaceName(t, "setup"), snapshot.Namespace)
	require.Equal(t, len(frozen), snapshot.Pets)
	require.WithinRange(t, snapshot.Clock, frozenAt, frozenAt.Add(time.Minute))
	require.Empty(t, snapshot.Forks)
	resp, _ = callAPI(t, setup, http.MethodPost, "/pets", map[string]any{"name": "After the snapshot", "categoryId": 1})
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	for _, fork := range []*control.Client{first, second} {
		summary, err := fork.Reset(ctx, control.FromSnapshot(name))
		require.NoError(t, err)
		require.Equal(t, len(frozen), summary.Pets)
	}
	pets, err := first.ExportPets(ctx)
	require.NoError(t, err)
	require.Equal(t, frozen, pets, "the snapshot's pets, not what setup did since")
	clock, err := first.GetClock(ctx)
	require.NoError(t, err)
	require.WithinRange(t, clock.Now, frozenAt, frozenAt.Add(time.Minute), "the snapshot's clock")

	resp, answer = callAPI(t, first, http.MethodPost, "/pets", map[string]any{"name": "Only in first", "categoryId": 2})
	require.Equal(t, http.StatusCreated, resp.StatusCode, "answer: %s", answer)
	path := "/pets/" + strconv.FormatInt(decode[api.Pet](t, answer).ID, 10)
	resp, _ = callAPI(t, first, http.MethodGet, path, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	resp, _ = callAPI(t, second, http.MethodGet, path, nil)
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "a fork's write is its own")
	pets, err = second.ExportPets(ctx)
	require.NoError(t, err)
	require.Equal(t, frozen, pets)
	_, err = first.Reset(ctx, control.FromSnapshot(name))
	require.NoError(t, err)
	pets, err = first.ExportPets(ctx)
	require.NoError(t, err)
	require.Equal(t, frozen, pets, "a reset returns the fork to the snapshot, which the write never reached")

	listed, err := setup.ListSnapshots(ctx)
	require.NoError(t, err)
	var forks []string
	for _, s := range listed.Snapshots {
		if s.Name == name {
			forks = s.Forks
		}
	}
	require.ElementsMatch(t, []string{namespaceName(t, "a"), namespaceName(t, "b")}, forks)
	_, err = setup.DeleteSnapshot(ctx, name)
	inUse := refusal(t, err)
	require.Equal(t, http.StatusConflict, inUse.StatusCode)
	require.Equal(t, "conflict", inUse.Code)
	require.Contains(t, inUse.Message, namespaceName(t, "a"))
	_, err = setup.CreateSnapshot(ctx, name)
	require.Equal(t, http.StatusConflict, refusal(t, err).StatusCode, "the name is taken")

	_, err = first.Reset(ctx)
	require.NoError(t, err)
	_, err = second.DeleteNamespace(ctx, namespaceName(t, "b"))
	require.NoError(t, err)
	deleted, err := setup.DeleteSnapshot(ctx, name)
	require.NoError(t, err)
	require.Equal(t, control.SnapshotDeleted{Snapshot: name, Deleted: true}, deleted)
	listed, err = setup.ListSnapshots(ctx)
	require.NoError(t, err)
	for _, s := range listed.Snapshots {
		require.NotEqual(t, name, s.Name)
	}

	_, err = first.Reset(ctx, control.FromSnapshot(name))
	refused := refusal(t, err)
	require.Equal(t, "reset", refused.Operation)
	require.Equal(t, http.StatusNotFound, refused.StatusCode)
	require.Equal(t, "not_found", refused.Code)
	require.Equal(t, `No snapshot "`+name+`"`, refused.Message)
	_, err = setup.DeleteSnapshot(ctx, name)
	require.Equal(t, http.StatusNotFound, refusal(t, err).StatusCode)
}

func TestControl_snapshotOfTheDefaultNamespace(t *testing.T) {
	t.Parallel()
	admin, err := sharedSandbox(t).Control(t.Context())
	require.NoError(t, err)
	name := namespaceName(t, "")

	// The client of the default namespace names none: the sandbox takes the default one.
	snapshot, err := admin.CreateSnapshot(t.Context(), name)
	require.NoError(t, err)
	require.Equal(t, "default", snapshot.Namespace)
	require.Zero(t, snapshot.Clock, "the default namespace's clock follows real time")
	deleted, err := admin.DeleteSnapshot(t.Context(), name)
	require.NoError(t, err)
	require.True(t, deleted.Deleted)
}

// traceparent is a W3C traceparent header of a fresh trace, and that trace's id.
func traceparent(t *testing.T) (header, traceID string) {
	t.Helper()
	ids := make([]byte, 24)
	_, err := rand.Read(ids)
	require.NoError(t, err)
	traceID = hex.EncodeToString(ids[:16])
	return "00-" + traceID + "-" + hex.EncodeToString(ids[16:]) + "-01", traceID
}

// Two traces in one namespace: the journal, the coverage report and Verify each read one of them.
func TestControl_trace(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	ctx := t.Context()
	listing, listingTrace := traceparent(t)
	creating, creatingTrace := traceparent(t)

	header := ns.Header()
	header.Set("traceparent", listing)
	resp, _ := send(t, http.MethodGet, ns.BaseURL()+"/pets", header, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	header.Set("traceparent", creating)
	resp, _ = send(t, http.MethodPost, ns.BaseURL()+"/pets", header, map[string]any{"name": "Traced", "categoryId": 1})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		count, err := ns.CountRequests(ctx, control.RequestFilter{})
		require.NoError(c, err)
		require.Equal(c, 2, count)
	}, journalWait, 20*time.Millisecond)

	listed, err := ns.ListRequests(ctx, control.RequestFilter{TraceID: listingTrace})
	require.NoError(t, err)
	require.Equal(t, 1, listed.Count)
	require.Equal(t, "listPets", listed.Entries[0].OperationID)
	require.Equal(t, listingTrace, listed.Entries[0].TraceID)

	report, err := ns.GetCoverage(ctx, control.ForTrace(creatingTrace))
	require.NoError(t, err)
	require.Equal(t, 1, report.Summary.Calls)
	created, _ := report.Operation("createPet")
	require.Equal(t, 1, created.Calls)
	listedCoverage, _ := report.Operation("listPets")
	require.Zero(t, listedCoverage.Calls)

	expected := []control.Expectation{control.Expect("createPet").Times(1)}
	mine, err := ns.Verify(ctx, control.VerifyRequest{Expectations: expected, Strict: true}, control.ForTrace(creatingTrace))
	require.NoError(t, err)
	require.True(t, mine.Passed, "the creating trace made one call, createPet: %+v", mine)
	other, err := ns.Verify(ctx, control.VerifyRequest{Expectations: expected, Strict: true}, control.ForTrace(listingTrace))
	require.NoError(t, err)
	require.False(t, other.Passed, "the listing trace created nothing: %+v", other)
}
