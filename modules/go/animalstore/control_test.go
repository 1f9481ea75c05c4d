package animalstore_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

// The generated client against the sandbox, through what the module adds: the admin token, the
// optional parameters sent when set, the bodies whose zeros mean something, the API's headers.
// What the answers mean is the sandbox's, tested in its own suite (test/control, test/journal).
func TestControl_operations(t *testing.T) {
	t.Parallel()
	admin, name := testNamespace(t, "")
	ctx := t.Context()

	seed, count := 3, 4
	reset, err := admin.ResetWithResponse(ctx, &control.ResetParams{Namespace: &name}, control.ResetJSONRequestBody{Seed: &seed, Count: &count})
	require.NoError(t, err)
	require.Equal(t, &control.StateSummary{Namespace: name, Pets: 4}, reset.JSON200)
	pets, err := admin.ExportPetsWithResponse(ctx, &control.ExportPetsParams{Namespace: &name})
	require.NoError(t, err)
	replaced, err := admin.ReplacePetsWithResponse(ctx, &control.ReplacePetsParams{Namespace: &name}, (*pets.JSON200)[:2])
	require.NoError(t, err)
	require.Equal(t, 2, replaced.JSON200.Pets)

	const traceID = "0af7651916cd43dd8448eb211c80319c"
	baseURL, err := sharedSandbox(t).BaseURL(ctx)
	require.NoError(t, err)
	traced := sharedSandbox(t).APIHeader(name)
	traced.Set("traceparent", "00-"+traceID+"-b7ad6b7169203331-01")
	send(t, http.MethodGet, baseURL+"/pets?limit=5", traced, nil)
	callAPI(t, name, http.MethodGet, "/pets/1", nil)
	callAPI(t, name, http.MethodGet, "/nowhere", nil)
	all, err := admin.ListRequestsWithResponse(ctx, &control.ListRequestsParams{Namespace: &name})
	require.NoError(t, err)
	require.Len(t, all.JSON200.Entries, 3, "no filter, no limit: every entry")
	listed, err := admin.ListRequestsWithResponse(ctx, &control.ListRequestsParams{Namespace: &name, Method: control.Ptr("get"),
		Path: control.Ptr("/v1/pets"), OperationID: control.Ptr("listPets"), Status: control.Ptr(http.StatusOK),
		Since: control.Ptr(time.Now().Add(-time.Hour)), Limit: control.Ptr(1)})
	require.NoError(t, err)
	limit, err := listed.JSON200.Entries[0].Query["limit"].AsJournalEntryQuery0()
	require.NoError(t, err)
	require.Equal(t, "5", limit)
	unmatched, err := admin.ListUnmatchedRequestsWithResponse(ctx, &control.ListUnmatchedRequestsParams{Namespace: &name})
	require.NoError(t, err)
	require.Equal(t, "/v1/nowhere", unmatched.JSON200.Entries[0].Path)

	ofTrace, err := admin.GetCoverageWithResponse(ctx, &control.GetCoverageParams{Namespace: &name, TraceID: control.Ptr(traceID)})
	require.NoError(t, err)
	require.Equal(t, 1, ofTrace.JSON200.Summary.Calls)
	markdown, err := admin.GetCoverageWithResponse(ctx, &control.GetCoverageParams{All: control.Ptr(true), Format: control.Ptr(control.Markdown)})
	require.NoError(t, err)
	require.Contains(t, string(markdown.Body), "# API coverage: every namespace")
	result, err := admin.VerifyWithResponse(ctx, &control.VerifyParams{Namespace: &name}, control.VerifyRequest{
		Strict: true, // and no other call
		Expectations: []control.Expectation{
			control.Expect("listPets").Times(1).WithHeader(control.NamespaceHeader, name),
			control.Expect("getPet").AtLeast(1).AtMost(1),
			control.Expect("unmatched"),
			control.Expect("createPet").Never(),
		},
	})
	require.NoError(t, err)
	result.JSON200.AssertVerified(t)

	frozenAt := time.Date(2029, 6, 1, 12, 0, 0, 0, time.UTC)
	clock, err := admin.SetClockWithResponse(ctx, &control.SetClockParams{Namespace: &name}, control.SetClockJSONRequestBody{Now: frozenAt})
	require.NoError(t, err)
	require.WithinRange(t, clock.JSON200.Now, frozenAt, frozenAt.Add(time.Minute))
	snapshot, err := admin.CreateSnapshotWithResponse(ctx, control.NewSnapshot{Name: name, Namespace: name})
	require.NoError(t, err)
	require.Equal(t, []any{name, 2}, []any{snapshot.JSON201.Namespace, snapshot.JSON201.Pets})
	fork := namespaceName(t, "fork")
	forked, err := admin.ResetWithResponse(ctx, &control.ResetParams{Namespace: &fork}, control.ResetJSONRequestBody{Snapshot: name})
	require.NoError(t, err)
	require.Equal(t, 2, forked.JSON200.Pets)
	deleted, err := admin.DeleteNamespaceWithResponse(ctx, fork)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, deleted.StatusCode())
	gone, err := admin.DeleteSnapshotWithResponse(ctx, name)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, gone.StatusCode())
}

// An optional parameter is sent when set, even at its zero, and not when nil: limit=0 answers the
// journal's count alone. Pages each after the last one's Next read every entry once, and Next is
// nil on the last page, where an after of 0 would start over from the oldest entry.
func TestControl_zeroParameterIsSentAndPagesEndAtNilNext(t *testing.T) {
	t.Parallel()
	admin, name := testNamespace(t, "")
	ctx := t.Context()
	for _, path := range []string{"/pets/1", "/pets/2", "/pets/3"} {
		callAPI(t, name, http.MethodGet, path, nil)
	}
	var sent url.Values
	recordQuery := func(_ context.Context, req *http.Request) error {
		sent = req.URL.Query()
		return nil
	}
	countOnly, err := admin.ListRequestsWithResponse(ctx,
		&control.ListRequestsParams{Namespace: &name, Limit: control.Ptr(0), After: control.Ptr(0)}, recordQuery)
	require.NoError(t, err)
	require.Equal(t, url.Values{"namespace": {name}, "limit": {"0"}, "after": {"0"}}, sent)
	require.Equal(t, 3, countOnly.JSON200.Count)
	require.Empty(t, countOnly.JSON200.Entries)

	all, err := admin.ListRequestsWithResponse(ctx, &control.ListRequestsParams{Namespace: &name}, recordQuery)
	require.NoError(t, err)
	require.Equal(t, url.Values{"namespace": {name}}, sent)
	var want, paged []int
	for _, entry := range all.JSON200.Entries {
		want = append(want, entry.ID)
	}
	params := &control.ListRequestsParams{Namespace: &name, Limit: control.Ptr(1)}
	for range len(want) + 1 { // a page more than enough, to see a loop that never ends
		page, err := admin.ListRequestsWithResponse(ctx, params)
		require.NoError(t, err)
		for _, entry := range page.JSON200.Entries {
			paged = append(paged, entry.ID)
		}
		if page.JSON200.Next == nil {
			break
		}
		params.After = page.JSON200.Next
	}
	require.Len(t, want, 3)
	require.Equal(t, want, paged)
}

// A client made from the sandbox's root URL alone; a refusal is the Error of its status.
func TestControl_newAgainstAnyURL(t *testing.T) {
	t.Parallel()
	// The root the module dials (127.0.0.1), not the engine's "localhost", which may resolve to ::1
	// where another container holds the IPv4 binding's number.
	baseURL, err := sharedSandbox(t).BaseURL(t.Context())
	require.NoError(t, err)
	endpoint := strings.TrimSuffix(baseURL, "/v1")
	admin, err := control.New(endpoint+"/", sharedAdminToken)
	require.NoError(t, err)
	clock, err := admin.GetClockWithResponse(t.Context(), nil)
	require.NoError(t, err)
	require.Equal(t, "default", clock.JSON200.Namespace)

	refused, err := admin.AddFaultWithResponse(t.Context(), nil, control.NewFault{OperationID: "noSuchOperation", Status: 500})
	require.NoError(t, err)
	require.Equal(t, "invalid_body", refused.JSON400.Code)
	withKey, err := control.New(endpoint, sharedAPIKey)
	require.NoError(t, err)
	unauthorized, err := withKey.GetClockWithResponse(t.Context(), nil)
	require.NoError(t, err)
	require.Equal(t, "unauthorized", unauthorized.JSON401.Code)
}

// APIHeader names the namespace: a fault armed in one fails its calls alone.
func TestControl_namespacesAreIsolated(t *testing.T) {
	t.Parallel()
	admin, a := testNamespace(t, "a")
	_, b := testNamespace(t, "b")
	ctr, ctx := sharedSandbox(t), t.Context()
	baseURL, err := ctr.BaseURL(ctx)
	require.NoError(t, err)

	_, err = admin.AddFaultWithResponse(ctx, &control.AddFaultParams{Namespace: &a},
		control.NewFault{OperationID: "listPets", Status: http.StatusServiceUnavailable, Times: 1})
	require.NoError(t, err)
	for _, call := range []struct {
		namespace string
		want      int
	}{{a, http.StatusServiceUnavailable}, {b, http.StatusOK}, {a, http.StatusOK}} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/pets", nil)
		require.NoError(t, err)
		req.Header = ctr.APIHeader(call.namespace) // the API key, and X-Sandbox-Namespace
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, call.want, resp.StatusCode)
	}
}

// A suite that caused every response of createPet a conforming client can cause passes the
// check: it never sent malformed JSON or forced a 400, which only malformed HTTP or JSON causes.
func TestControl_CoverageAsksOnlyForReachableResponses(t *testing.T) {
	t.Parallel()
	admin, name := testNamespace(t, "")
	baseURL, err := sharedSandbox(t).BaseURL(t.Context())
	require.NoError(t, err)
	created, _ := callAPI(t, name, http.MethodPost, "/pets", map[string]any{"name": "Rex", "categoryId": 3})
	require.Equal(t, http.StatusCreated, created.StatusCode)
	invalid, _ := callAPI(t, name, http.MethodPost, "/pets", map[string]any{"categoryId": 3})
	require.Equal(t, http.StatusBadRequest, invalid.StatusCode)
	// The sandbox's words, the same as the TypeScript client raises (test/journal/client-assertions.test.ts).
	want := fmt.Sprintf("createPet (POST /v1/pets), namespace %s: never exercised 401", name)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		coverage, err := admin.GetCoverageWithResponse(t.Context(), &control.GetCoverageParams{Namespace: &name})
		require.NoError(c, err)
		require.NotNil(c, coverage.JSON200)
		assert.EqualError(c, coverage.JSON200.AllResponsesExercised("createPet"), want)
	}, 5*time.Second, 50*time.Millisecond)
	wrongKey := sharedSandbox(t).APIHeader(name)
	wrongKey.Set("Authorization", "Bearer not-a-key")
	refused, _ := send(t, http.MethodPost, baseURL+"/pets", wrongKey, map[string]any{})
	require.Equal(t, http.StatusUnauthorized, refused.StatusCode)

	coverage, err := admin.GetCoverageWithResponse(t.Context(), &control.GetCoverageParams{Namespace: &name})
	require.NoError(t, err)
	report := *coverage.JSON200
	require.NoError(t, report.AllResponsesExercised("createPet"))
	createPet, ok := report.Operation("createPet")
	require.True(t, ok)
	var left []string
	for _, response := range createPet.Responses {
		if !response.Exercised {
			left = append(left, fmt.Sprintf("%s reachable=%t", response.Label, response.Reachable))
		}
	}
	require.Equal(t, []string{"400 malformed_json reachable=false", "400 bad_request reachable=false"}, left)
}

// recorder is a testing.TB that records what an assertion reports instead of failing the test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// What each assertion says when it fails, in the sandbox's words where it gives them.
func TestControl_assertionsSayWhatIsMissing(t *testing.T) {
	t.Parallel()
	admin, name := testNamespace(t, "")
	ctx := t.Context()
	callAPI(t, name, http.MethodGet, "/pets/1", nil) // getPet is deprecated
	callAPI(t, name, http.MethodGet, "/pets/1", nil)
	coverage, err := admin.GetCoverageWithResponse(ctx, &control.GetCoverageParams{Namespace: &name})
	require.NoError(t, err)
	report := *coverage.JSON200
	verified, err := admin.VerifyWithResponse(ctx, &control.VerifyParams{Namespace: &name},
		control.VerifyRequest{Expectations: []control.Expectation{control.Expect("getPet").Times(1)}})
	require.NoError(t, err)

	rec := &recorder{TB: t}
	require.False(t, report.AssertNoDeprecatedCalls(rec))
	require.False(t, verified.JSON200.AssertVerified(rec))
	require.False(t, report.AssertAllResponsesExercised(rec))
	require.Equal(t, []string{
		fmt.Sprintf("deprecated operations called (namespace %s):\n- getPet (GET /v1/pets/{petId}): 2 calls, sunset 2030-12-05, use /v1/pets instead", name),
		fmt.Sprintf("verification (namespace %s) %s", name, verified.JSON200.Message),
		report.Message,
	}, rec.errors)
	require.ErrorContains(t, report.AllResponsesExercised("nope"), "the API has no operation nope; it has listPets, ")
}
