package animalstore_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/api"
	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

// Every operation of the client (control/spec_test.go holds it to the spec) once against the
// sandbox: what it sends is taken, and its answer decodes. What the answers mean is the
// sandbox's, tested in its own suite (test/control, test/coverage).
func TestControl_operations(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	other := testNamespace(t, "other")
	ctx := t.Context()
	name := namespaceName(t, "")

	summary, err := ns.Reset(ctx, control.WithSeed(3), control.WithCount(4))
	require.NoError(t, err)
	require.Equal(t, control.StateSummary{Namespace: name, Pets: 4}, summary)
	pets, err := ns.ExportPets(ctx)
	require.NoError(t, err)
	require.Len(t, pets, 4)
	summary, err = ns.ReplacePets(ctx, pets[:2])
	require.NoError(t, err)
	require.Equal(t, 2, summary.Pets)

	const traceID = "0af7651916cd43dd8448eb211c80319c"
	traced := ns.Header()
	traced.Set("traceparent", "00-"+traceID+"-b7ad6b7169203331-01")
	send(t, http.MethodGet, ns.BaseURL()+"/pets?limit=5", traced, nil)
	callAPI(t, ns, http.MethodGet, "/pets/1", nil)
	callAPI(t, ns, http.MethodGet, "/nowhere", nil)
	count, err := ns.CountRequests(ctx, &control.ListRequestsParams{TraceID: traceID})
	require.NoError(t, err)
	require.Equal(t, 1, count)
	listed, err := ns.ListRequests(ctx, &control.ListRequestsParams{Method: "get", Path: "/v1/pets", OperationID: "listPets",
		Status: http.StatusOK, Since: time.Now().Add(-time.Hour), Limit: 1})
	require.NoError(t, err)
	require.Equal(t, 1, listed.Count)
	limit, err := listed.Entries[0].Query["limit"].AsJournalEntryQuery0()
	require.NoError(t, err)
	require.Equal(t, "5", limit)
	first, err := ns.ListRequests(ctx, &control.ListRequestsParams{Limit: 2})
	require.NoError(t, err)
	var walked []int
	for entry, err := range ns.AllRequests(ctx, nil) {
		require.NoError(t, err)
		walked = append(walked, entry.ID)
	}
	require.Len(t, walked, 3, "every page")
	rest, err := ns.ListRequests(ctx, &control.ListRequestsParams{After: first.Next})
	require.NoError(t, err)
	require.Equal(t, walked[2], rest.Entries[0].ID)
	unmatched, err := ns.ListUnmatchedRequests(ctx, &control.ListUnmatchedRequestsParams{Limit: 5})
	require.NoError(t, err)
	require.Equal(t, "/v1/nowhere", unmatched.Entries[0].Path)

	report, err := ns.GetCoverage(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, 3, report.Summary.Calls)
	markdown, err := ns.GetCoverageMarkdown(ctx, &control.GetCoverageParams{All: true})
	require.NoError(t, err)
	require.Contains(t, markdown, "# API coverage: every namespace")
	ofTrace, err := ns.GetCoverage(ctx, &control.GetCoverageParams{TraceID: traceID})
	require.NoError(t, err)
	require.Equal(t, 1, ofTrace.Summary.Calls)
	result, err := ns.Verify(ctx, control.VerifyRequest{
		Strict: true, // and no other call
		Expectations: []control.Expectation{
			control.Expect("listPets").Times(1).WithHeader(control.NamespaceHeader, name),
			control.Expect("getPet").AtLeast(1).AtMost(1),
			control.Expect("unmatched"),
			control.Expect("createPet").Never(),
		},
	}, nil)
	require.NoError(t, err)
	result.AssertVerified(t)
	result, err = ns.Verify(ctx, control.VerifyRequest{Strict: true, Expectations: []control.Expectation{control.Expect("listPets")}},
		&control.VerifyParams{TraceID: traceID})
	require.NoError(t, err)
	require.True(t, result.Passed, result.Message)
	drift, err := ns.GetDrift(ctx)
	require.NoError(t, err)
	require.Equal(t, control.DriftReportMode("off"), drift.Mode)
	pact, err := ns.ExportPact(ctx, &control.ExportPactParams{Consumer: "checkout", Provider: "store"})
	require.NoError(t, err)
	var contract struct{ Consumer, Provider struct{ Name string } }
	require.NoError(t, json.Unmarshal(pact, &contract))
	require.Equal(t, []string{"checkout", "store"}, []string{contract.Consumer.Name, contract.Provider.Name})
	cleared, err := ns.ClearRequests(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, cleared.Cleared)

	fault, err := ns.AddFault(ctx, control.NewFault{OperationID: "listPets", Status: http.StatusServiceUnavailable, Times: 1})
	require.NoError(t, err)
	faults, err := ns.ListFaults(ctx)
	require.NoError(t, err)
	require.Equal(t, fault.ID, faults.Faults[0].ID)
	cleared, err = ns.ClearFaults(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, cleared.Cleared)

	frozenAt := time.Date(2029, 6, 1, 12, 0, 0, 0, time.UTC)
	clock, err := ns.SetClock(ctx, frozenAt)
	require.NoError(t, err)
	require.WithinRange(t, clock.Now, frozenAt, frozenAt.Add(time.Minute))
	clock, err = ns.GetClock(ctx)
	require.NoError(t, err)
	require.False(t, clock.Real)

	snapshot, err := ns.CreateSnapshot(ctx, name)
	require.NoError(t, err)
	require.Equal(t, []any{name, name, 2}, []any{snapshot.Name, snapshot.Namespace, snapshot.Pets})
	clock, err = ns.ResetClock(ctx)
	require.NoError(t, err)
	require.True(t, clock.Real)
	summary, err = other.Reset(ctx, control.FromSnapshot(name))
	require.NoError(t, err)
	require.Equal(t, 2, summary.Pets)
	snapshots, err := ns.ListSnapshots(ctx)
	require.NoError(t, err)
	var forks []string
	for _, listed := range snapshots.Snapshots {
		if listed.Name == name {
			forks = listed.Forks
		}
	}
	require.Equal(t, []string{namespaceName(t, "other")}, forks)

	namespaces, err := ns.ListNamespaces(ctx)
	require.NoError(t, err)
	var names []string
	for _, listed := range namespaces.Namespaces {
		names = append(names, listed.Name)
	}
	require.Subset(t, names, []string{name, namespaceName(t, "other")})
	deleted, err := ns.DeleteNamespace(ctx, namespaceName(t, "other"))
	require.NoError(t, err)
	require.Equal(t, control.Deleted{Namespace: namespaceName(t, "other"), Deleted: true}, deleted)
	gone, err := ns.DeleteSnapshot(ctx, name)
	require.NoError(t, err)
	require.Equal(t, control.SnapshotDeleted{Snapshot: name, Deleted: true}, gone)
}

// A refusal is a *control.Error with the operation, the status and the Error body's code.
func TestControl_errors(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	ctr := sharedSandbox(t)
	withKey, err := ctr.Control(t.Context(), control.WithAdminToken(ctr.APIKey()))
	require.NoError(t, err)

	for _, tc := range []struct {
		name string
		err  error
		want control.Error
	}{
		{"refused body", second(ns.AddFault(t.Context(), control.NewFault{OperationID: "noSuchOperation", Status: 500})),
			control.Error{Operation: "addFault", StatusCode: http.StatusBadRequest, Code: "invalid_body"}},
		{"an API key for the admin token", second(withKey.GetClock(t.Context())),
			control.Error{Operation: "getClock", StatusCode: http.StatusUnauthorized, Code: "unauthorized"}},
		{"no such namespace", second(ns.Namespace(namespaceName(t, "gone")).GetCoverageMarkdown(t.Context(), nil)),
			control.Error{Operation: "getCoverage", StatusCode: http.StatusNotFound, Code: "not_found"}},
	} {
		var refused *control.Error
		require.ErrorAs(t, tc.err, &refused, tc.name)
		require.NotEmpty(t, refused.Message, tc.name)
		refused.Message = ""
		require.Equal(t, tc.want, *refused, tc.name)
	}

	_, err = control.New("localhost:4010")
	require.ErrorContains(t, err, "not an http(s) URL with a host")
}

func second[T any](_ T, err error) error { return err }

// A sandbox started any other way is reached by its root URL alone.
func TestControl_newAgainstAnyURL(t *testing.T) {
	t.Parallel()
	endpoint, err := sharedSandbox(t).PortEndpoint(t.Context(), "4010/tcp", "http")
	require.NoError(t, err)
	admin, err := control.New(endpoint+"/", control.WithAdminToken(sharedAdminToken), control.WithAPIKey(sharedAPIKey))
	require.NoError(t, err)
	require.Equal(t, endpoint+"/v1", admin.BaseURL())
	clock, err := admin.GetClock(t.Context())
	require.NoError(t, err)
	require.Equal(t, "default", clock.Namespace)
}

// A namespace's client sends the test's API requests to that namespace alone: its faults and
// pets are its own.
func TestControl_namespacesAreIsolated(t *testing.T) {
	t.Parallel()
	a, b := testNamespace(t, "a"), testNamespace(t, "b")
	ctx := t.Context()

	_, err := a.AddFault(ctx, control.NewFault{OperationID: "listPets", Status: http.StatusServiceUnavailable, Times: 1})
	require.NoError(t, err)
	for _, call := range []struct {
		ns   *control.Client
		want int
	}{{a, http.StatusServiceUnavailable}, {b, http.StatusOK}, {a, http.StatusOK}} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, call.ns.BaseURL()+"/pets", nil)
		require.NoError(t, err)
		req.Header = call.ns.Header() // the API key, and X-Sandbox-Namespace
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, call.want, resp.StatusCode)
	}

	resp, answer := callAPI(t, a, http.MethodPost, "/pets", map[string]any{"name": "Only In A", "categoryId": 3})
	require.Equal(t, http.StatusCreated, resp.StatusCode, "answer: %s", answer)
	aPets, err := a.ExportPets(ctx)
	require.NoError(t, err)
	bPets, err := b.ExportPets(ctx)
	require.NoError(t, err)
	var created api.Pet
	require.NoError(t, json.Unmarshal(answer, &created))
	require.Contains(t, aPets, created)
	require.Len(t, aPets, len(bPets)+1)
}
