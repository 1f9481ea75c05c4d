package animalstore_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/api"
	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

// The coverage report and Verify, and their assertions, after a short suite of API calls in the
// test's namespace of the shared sandbox.

// getPetSunset is getPet's removal date in the API's spec.
var getPetSunset = time.Date(2030, time.December, 5, 0, 0, 0, 0, time.UTC)

func TestCoverage_report(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	name := namespaceName(t, "")
	suite := runSuite(t, ns)

	report, err := ns.GetCoverage(t.Context())
	require.NoError(t, err)
	require.EqualValues(t, 1, report.ReportVersion)
	require.Equal(t, name, report.Namespace)
	require.Equal(t, []string{name}, report.Namespaces)
	summary := report.Summary
	require.Equal(t, []int{6, 4, 11, 5, 1, 1, 2, 0, 0, 0, 0, 0}, []int{summary.Calls, summary.Operations, summary.Responses,
		summary.Exercised, summary.Unmatched, summary.Invalid, summary.DeprecatedCalls, summary.UnstableCalls,
		summary.UnauthenticatedDropped, summary.JournalDropped, summary.NamespacesDeleted, summary.NamespacesEvicted})

	require.Equal(t, []string{"listPets 1", "createPet 2", "getPet 2", "listOrders 0"}, operationCalls(report))
	require.Equal(t, []string{"200 ×1", "401 never"}, responses(t, report, "listPets"))
	require.Equal(t, []string{"201 ×1", "400 invalid_body ×1", "400 malformed_json never", "400 bad_request never", "401 never"},
		responses(t, report, "createPet"))
	require.Equal(t, []string{"200 ×1", "401 never", "404 ×1"}, responses(t, report, "getPet"))
	require.Equal(t, []string{"default never"}, responses(t, report, "listOrders"))

	listPets, _ := report.Operation("listPets")
	limit := listPets.Parameters[0]
	require.Equal(t, "limit", limit.Name)
	var limitValues []string
	for _, value := range limit.Values {
		limitValues = append(limitValues, fmt.Sprintf("%s ×%d", value.Label, value.Calls))
	}
	require.Equal(t, []string{"1 (minimum) ×0", "100 (maximum) ×0", "default (20) ×0"}, limitValues)
	require.Len(t, limit.Others, 1)
	require.Equal(t, []any{"5", 1}, []any{limit.Others[0].Value, limit.Others[0].Calls})

	getPet, _ := report.Operation("getPet")
	require.True(t, getPet.Deprecated)
	require.Equal(t, "/v1/pets", getPet.Replacement)
	require.Len(t, report.DeprecatedCalls, 1)
	deprecated := report.DeprecatedCalls[0]
	require.True(t, getPetSunset.Equal(deprecated.Sunset), "sunset %s", deprecated.Sunset)
	deprecated.Sunset = time.Time{}
	require.Equal(t, control.DeprecatedCall{OperationID: "getPet", Method: http.MethodGet, Path: "/v1/pets/{petId}", Calls: 2, Replacement: "/v1/pets"}, deprecated)
	require.Empty(t, report.UnstableCalls)
	require.Equal(t, 1, report.Unmatched.Count)
	require.Len(t, report.Unmatched.Requests, 1)
	unmatched := report.Unmatched.Requests[0]
	require.Equal(t, []any{http.MethodGet, "/v1/no-such-thing", http.StatusNotFound, 1},
		[]any{unmatched.Method, unmatched.Path, unmatched.Status, unmatched.Calls})
	require.Equal(t, 1, report.Invalid.Count)
	invalid := report.Invalid.Requests[0]
	require.Equal(t, suite.invalidCreate, invalid.ID)
	require.Equal(t, []any{"createPet", "POST", "/v1/pets", 400, "invalid_body"},
		[]any{invalid.OperationID, invalid.Method, invalid.Path, invalid.Status, invalid.Code})
	require.Contains(t, invalid.Message, "categoryId")

	markdown, err := ns.GetCoverageMarkdown(t.Context())
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(markdown, "# API coverage: namespace `"+name+"`"), markdown)
	require.Contains(t, markdown, "5 of 11 documented responses exercised")
	require.Contains(t, markdown, "removed on 2030-12-05")
}

func TestCoverage_allNamespaces(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	runSuite(t, ns)

	// Across every namespace, whichever namespace the client is bound to.
	report, err := ns.GetCoverage(t.Context(), control.AllNamespaces())
	require.NoError(t, err)
	require.Empty(t, report.Namespace)
	require.Contains(t, report.Namespaces, namespaceName(t, ""))
	createPet, _ := report.Operation("createPet")
	require.GreaterOrEqual(t, createPet.Calls, 2)
	markdown, err := ns.GetCoverageMarkdown(t.Context(), control.AllNamespaces())
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(markdown, "# API coverage: every namespace"), markdown)

	rec := &recorder{TB: t}
	require.False(t, report.AssertNoDeprecatedCalls(rec))
	require.Len(t, rec.errors, 1)
	require.True(t, strings.HasPrefix(rec.errors[0], "deprecated operations called (every namespace):\n- getPet "), rec.errors[0])
}

func TestVerify_closestCallAndDifference(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	suite := runSuite(t, ns)

	met, err := ns.Verify(t.Context(), control.VerifyRequest{Expectations: []control.Expectation{
		control.Expect("createPet").Times(1).WithBody(map[string]any{"name": "Rex", "categoryId": 3}),
		control.Expect("createPet").WithHeader("Content-Type", "application/json").AtLeast(2),
		control.Expect("getPet").AtMost(2),
		control.Expect("listOrders").Never(),
	}})
	require.NoError(t, err)
	require.True(t, met.Passed, met.Message)
	require.Equal(t, 6, met.Checked)
	var matched []int
	for _, result := range met.Expectations {
		matched = append(matched, result.Matched)
	}
	require.Equal(t, []int{1, 2, 2, 0}, matched)
	require.Equal(t, []int{suite.create}, met.Expectations[0].MatchedEntries)

	// The invalid create sent categoryId as a string: it is the closest call, with that difference.
	missed, err := ns.Verify(t.Context(), control.VerifyRequest{Expectations: []control.Expectation{
		control.Expect("createPet").Times(1).WithBody(map[string]any{"name": "Bad", "categoryId": 3}),
	}})
	require.NoError(t, err)
	require.False(t, missed.Passed)
	failed := missed.Expectations[0]
	require.Zero(t, failed.Matched)
	require.Equal(t, suite.invalidCreate, failed.Closest[0].Entry.ID)
	require.Len(t, failed.Closest[0].Differences, 1)
	difference := failed.Closest[0].Differences[0]
	require.Equal(t, []any{control.DifferenceIn("body"), "/categoryId", 3.0, "3", `createPet body /categoryId: expected 3, got "3"`},
		[]any{difference.In, difference.Pointer, difference.Expected, difference.Actual, difference.Message})
}

func TestVerify_strict(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	suite := runSuite(t, ns)
	expected := []control.Expectation{
		control.Expect("createPet").Times(2),
		control.Expect("getPet").Times(2),
		control.Expect("unmatched").Times(1),
	}

	result, err := ns.Verify(t.Context(), control.VerifyRequest{Expectations: expected, Strict: true})
	require.NoError(t, err)
	require.True(t, result.Strict)
	require.False(t, result.Passed)
	for _, expectation := range result.Expectations {
		require.True(t, expectation.Passed, expectation.Message)
	}
	require.Equal(t, []control.EntrySummary{
		{ID: suite.list, Method: http.MethodGet, Path: "/v1/pets", Status: http.StatusOK, OperationID: "listPets"},
	}, result.Unexpected)

	lenient, err := ns.Verify(t.Context(), control.VerifyRequest{Expectations: expected})
	require.NoError(t, err)
	require.True(t, lenient.Passed, "without Strict, other calls are allowed")
}

func TestCoverage_assertionsFailWithWhatIsMissing(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	suite := runSuite(t, ns)
	ctx := t.Context()
	scope := " (namespace " + namespaceName(t, "") + "):\n"
	report, err := ns.GetCoverage(ctx)
	require.NoError(t, err)

	requireReported(t, "documented responses never exercised"+scope+
		"- createPet (POST /v1/pets): 400 malformed_json, 400 bad_request, 401",
		func(tb testing.TB) bool { return report.AssertAllResponsesExercised(tb, "createPet") })
	requireReported(t, "documented responses never exercised"+scope+
		"- listPets (GET /v1/pets): 401\n"+
		"- createPet (POST /v1/pets): 400 malformed_json, 400 bad_request, 401\n"+
		"- getPet (GET /v1/pets/{petId}): 401\n"+
		"- listOrders (GET /v1/store/orders): default",
		func(tb testing.TB) bool { return report.AssertAllResponsesExercised(tb) })
	requireReported(t, "deprecated operations called"+scope+
		"- getPet (GET /v1/pets/{petId}): 2 calls, sunset 2030-12-05, use /v1/pets instead",
		report.AssertNoDeprecatedCalls)
	requireReported(t, "the API has no operation noSuchOperation; it has listPets, createPet, getPet, listOrders",
		func(tb testing.TB) bool { return report.AssertAllResponsesExercised(tb, "noSuchOperation") })

	missed, err := ns.Verify(ctx, control.VerifyRequest{Expectations: []control.Expectation{
		control.Expect("createPet").Times(1).WithBody(map[string]any{"name": "Bad", "categoryId": 3}),
	}})
	require.NoError(t, err)
	rec := &recorder{TB: t}
	require.False(t, missed.AssertVerified(rec))
	require.Len(t, rec.errors, 1)
	require.True(t, strings.HasPrefix(rec.errors[0], "verification failed"+scope+"- createPet: expected exactly 1 call"), rec.errors[0])
	require.Contains(t, rec.errors[0], "\n  #"+strconv.Itoa(suite.invalidCreate)+" POST /v1/pets → 400 (createPet):\n"+
		`    createPet body /categoryId: expected 3, got "3"`)

	strict, err := ns.Verify(ctx, control.VerifyRequest{Strict: true, Expectations: []control.Expectation{
		control.Expect("createPet").Times(2), control.Expect("getPet").Times(2), control.Expect("unmatched"),
	}})
	require.NoError(t, err)
	requireReported(t, "verification failed"+scope+"- unexpected call (strict): #"+strconv.Itoa(suite.list)+
		" GET /v1/pets → 200 (listPets)", strict.AssertVerified)
}

func TestCoverage_assertionsPassWhenSatisfied(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	ctx := t.Context()
	for path, status := range map[string]int{"/pets": 200, "/pets/1": 200, "/pets/987654": 404} {
		resp, _ := callAPI(t, ns, http.MethodGet, path, nil)
		require.Equal(t, status, resp.StatusCode, path)
	}
	wrongKey := ns.Header()
	wrongKey.Set("Authorization", "Bearer wrong-key")
	resp, _ := send(t, http.MethodGet, ns.BaseURL()+"/pets/1", wrongKey, nil)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	awaitJournal(t, ns, 4)

	report, err := ns.GetCoverage(ctx)
	require.NoError(t, err)
	rec := &recorder{TB: t}
	require.True(t, report.AssertAllResponsesExercised(rec, "getPet"))
	met, err := ns.Verify(ctx, control.VerifyRequest{Strict: true, Expectations: []control.Expectation{
		control.Expect("listPets").Times(1), control.Expect("getPet").AtLeast(3),
	}})
	require.NoError(t, err)
	require.True(t, met.AssertVerified(rec))
	require.Empty(t, rec.errors)
	require.False(t, report.AssertNoDeprecatedCalls(rec))
	require.Len(t, rec.errors, 1)
	require.Contains(t, rec.errors[0], "getPet (GET /v1/pets/{petId}): 3 calls")

	_, err = ns.Reset(ctx) // and the journal with it
	require.NoError(t, err)
	resp, _ = callAPI(t, ns, http.MethodGet, "/pets", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	awaitJournal(t, ns, 1)
	report, err = ns.GetCoverage(ctx)
	require.NoError(t, err)
	report.AssertNoDeprecatedCalls(t) // the real test: it fails here if the assertion does
}

func TestCoverage_refusals(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")
	ctx := t.Context()

	var refused *control.Error
	_, err := ns.Verify(ctx, control.VerifyRequest{Expectations: []control.Expectation{control.Expect("noSuchOperation")}})
	require.ErrorAs(t, err, &refused)
	require.Equal(t, []any{"verify", http.StatusBadRequest, "invalid_body"}, []any{refused.Operation, refused.StatusCode, refused.Code})
	require.Contains(t, refused.Message, "operationId")
	_, err = ns.Verify(ctx, control.VerifyRequest{Expectations: []control.Expectation{control.Expect("listPets").AtLeast(3).AtMost(1)}})
	require.ErrorAs(t, err, &refused)
	require.Contains(t, refused.Message, "min is above its max")

	gone := ns.Namespace(namespaceName(t, "gone"))
	_, err = gone.GetCoverage(ctx)
	require.ErrorAs(t, err, &refused)
	require.Equal(t, []any{"getCoverage", http.StatusNotFound, "not_found"}, []any{refused.Operation, refused.StatusCode, refused.Code})
	_, err = gone.GetCoverageMarkdown(ctx)
	require.ErrorAs(t, err, &refused)
	require.Equal(t, http.StatusNotFound, refused.StatusCode)
}

// suiteIDs are the journal ids of the suite's calls that the tests name.
type suiteIDs struct {
	create, list, invalidCreate int
}

// runSuite makes a create, a list, an invalid create (categoryId as a string), a get of a missing
// pet, a get of the created pet (getPet is deprecated) and a call of a path no operation has; it
// returns once the journal holds all six.
func runSuite(t *testing.T, ns *control.Client) suiteIDs {
	t.Helper()
	resp, answer := callAPI(t, ns, http.MethodPost, "/pets", map[string]any{"name": "Rex", "categoryId": 3})
	require.Equal(t, http.StatusCreated, resp.StatusCode, "answer: %s", answer)
	created := decode[api.Pet](t, answer)
	for _, call := range []struct {
		method, path string
		body         any
		status       int
	}{
		{http.MethodGet, "/pets?limit=5", nil, http.StatusOK},
		{http.MethodPost, "/pets", map[string]any{"name": "Bad", "categoryId": "3"}, http.StatusBadRequest},
		{http.MethodGet, "/pets/987654", nil, http.StatusNotFound},
		{http.MethodGet, "/pets/" + strconv.FormatInt(created.ID, 10), nil, http.StatusOK},
		{http.MethodGet, "/no-such-thing", nil, http.StatusNotFound},
	} {
		resp, answer := callAPI(t, ns, call.method, call.path, call.body)
		require.Equal(t, call.status, resp.StatusCode, "%s %s: %s", call.method, call.path, answer)
	}
	entries := awaitJournal(t, ns, 6)
	return suiteIDs{create: entries[0].ID, list: entries[1].ID, invalidCreate: entries[2].ID}
}

// awaitJournal waits (bounded) until the namespace's journal holds count entries, and returns them.
func awaitJournal(t *testing.T, ns *control.Client, count int) []control.JournalEntry {
	t.Helper()
	var page control.JournalPage
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		var err error
		page, err = ns.ListRequests(t.Context(), control.RequestFilter{})
		require.NoError(c, err)
		require.GreaterOrEqual(c, page.Count, count)
	}, journalWait, 20*time.Millisecond)
	return page.Entries
}

// operationCalls lists each operation of the report with its calls, e.g. "getPet 2".
func operationCalls(report control.CoverageReport) []string {
	var calls []string
	for _, op := range report.Operations {
		calls = append(calls, op.OperationID+" "+strconv.Itoa(op.Calls))
	}
	return calls
}

// responses lists each documented response of the operation, e.g. "400 invalid_body ×1" or "401 never".
func responses(t *testing.T, report control.CoverageReport, operationID string) []string {
	t.Helper()
	op, ok := report.Operation(operationID)
	require.True(t, ok, "no operation %s in the report", operationID)
	var rows []string
	for _, r := range op.Responses {
		if r.Exercised {
			rows = append(rows, fmt.Sprintf("%s ×%d", r.Label, r.Calls))
		} else {
			rows = append(rows, r.Label+" never")
		}
	}
	return rows
}

// recorder is a testing.TB that records what an assertion reports instead of failing the test;
// what it does not override goes to the real test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// requireReported runs an assertion on a recorder and requires that it failed with exactly message.
func requireReported(t *testing.T, message string, assertion func(testing.TB) bool) {
	t.Helper()
	rec := &recorder{TB: t}
	require.False(t, assertion(rec), "the assertion passed")
	require.Equal(t, []string{message}, rec.errors)
}
