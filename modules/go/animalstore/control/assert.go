package control

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// AssertAllResponsesExercised fails the test (t.Errorf) unless every documented response of the
// operations named, of every operation when none is named, was exercised, with the sandbox's
// message naming those never exercised. Responses only malformed HTTP or JSON causes (Reachable
// false) are not asked for. It returns whether they all were.
//
//	report, err := ns.GetCoverage(ctx, nil)
//	require.NoError(t, err)
//	report.AssertAllResponsesExercised(t, "createPet")
func (r CoverageReport) AssertAllResponsesExercised(t testing.TB, operationIDs ...string) bool {
	t.Helper()
	if err := r.AllResponsesExercised(operationIDs...); err != nil {
		t.Errorf("%s", err)
		return false
	}
	return true
}

// AllResponsesExercised is AssertAllResponsesExercised without a testing.TB, for TestMain's
// end-of-suite check: nil when every documented response of the operations named (of every
// operation when none is named) was exercised, else an error with the sandbox's message: the
// report's, or the lines of the operations named.
//
//	report, err := client.GetCoverage(ctx, &control.GetCoverageParams{All: control.Ptr(true)})
//	if err == nil {
//		err = report.AllResponsesExercised("listOrders")
//	}
//	if err != nil {
//		fmt.Fprintln(os.Stderr, err)
//		code = 1 // os.Exit(code) fails the run
//	}
func (r CoverageReport) AllResponsesExercised(operationIDs ...string) error {
	if len(operationIDs) == 0 {
		if !r.Complete {
			return errors.New(r.Message)
		}
		return nil
	}
	var failed []string
	for _, id := range operationIDs {
		op, ok := r.Operation(id)
		if !ok {
			return fmt.Errorf("the API has no operation %s; it has %s", id, strings.Join(r.operationIDs(), ", "))
		}
		if !op.Complete {
			failed = append(failed, op.Message)
		}
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "\n"))
	}
	return nil
}

// AssertNoDeprecatedCalls fails the test (t.Errorf) when a deprecated operation was called,
// naming its sunset and replacement. It returns whether none was.
func (r CoverageReport) AssertNoDeprecatedCalls(t testing.TB) bool {
	t.Helper()
	if len(r.DeprecatedCalls) == 0 {
		return true
	}
	calls := make([]string, 0, len(r.DeprecatedCalls))
	for _, call := range r.DeprecatedCalls {
		calls = append(calls, call.String())
	}
	t.Errorf("%s", failure("deprecated operations called", r.scope(), calls))
	return false
}

// AssertVerified fails the test (t.Errorf) unless the verification passed, with the sandbox's
// account: each failed expectation with the calls that came closest and their differences, and
// each unexpected call. It returns whether it passed.
func (r VerifyResult) AssertVerified(t testing.TB) bool {
	t.Helper()
	if !r.Passed {
		t.Errorf("verification (namespace %s) %s", r.Namespace, r.Message)
	}
	return r.Passed
}

// String reads e.g. getPet (GET /v1/pets/{petId}): 2 calls, sunset 2030-12-05, use /v1/pets instead.
func (c DeprecatedCall) String() string {
	text := fmt.Sprintf("%s (%s %s): %d call", c.OperationID, c.Method, c.Path, c.Calls)
	if c.Calls != 1 {
		text += "s"
	}
	if !c.Sunset.IsZero() {
		text += ", sunset " + c.Sunset.UTC().Format(time.DateOnly)
	}
	if c.Replacement != "" {
		text += ", use " + c.Replacement + " instead"
	}
	return text
}

func (r CoverageReport) scope() string {
	if r.Namespace == "" {
		return "every namespace"
	}
	return "namespace " + r.Namespace
}

func (r CoverageReport) operationIDs() []string {
	ids := make([]string, 0, len(r.Operations))
	for _, op := range r.Operations {
		ids = append(ids, op.OperationID)
	}
	return ids
}

// failure lists items under a heading, one per line.
func failure(what, scope string, items []string) string {
	return fmt.Sprintf("%s (%s):\n- %s", what, scope, strings.Join(items, "\n- "))
}
