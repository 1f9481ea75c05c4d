package control

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// AssertAllResponsesExercised fails the test (t.Errorf) with AllResponsesExercised's error, and
// returns whether there was none:
//
//	report.AssertAllResponsesExercised(t, "createPet")
func (r CoverageReport) AssertAllResponsesExercised(t testing.TB, operationIDs ...string) bool {
	t.Helper()
	if err := r.AllResponsesExercised(operationIDs...); err != nil {
		t.Errorf("%s", err)
		return false
	}
	return true
}

// AllResponsesExercised is nil when every response a conforming client can cause (Reachable) of
// the operations named, of every operation when none is, was exercised; else the sandbox's message
// (the report's, or the lines of the operations named). Without a testing.TB, for TestMain's
// end-of-suite check over GetCoverage(ctx, &GetCoverageParams{All: Ptr(true)}).
func (r CoverageReport) AllResponsesExercised(operationIDs ...string) error {
	if len(operationIDs) == 0 && !r.Complete {
		return errors.New(r.Message)
	}
	var failed []string
	for _, id := range operationIDs {
		op, ok := r.Operation(id)
		if !ok {
			ids := make([]string, 0, len(r.Operations))
			for _, op := range r.Operations {
				ids = append(ids, op.OperationID)
			}
			return fmt.Errorf("the API has no operation %s; it has %s", id, strings.Join(ids, ", "))
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

// AssertNoDeprecatedCalls fails the test (t.Errorf) naming each deprecated operation called, its
// sunset and replacement, and returns whether none was.
func (r CoverageReport) AssertNoDeprecatedCalls(t testing.TB) bool {
	t.Helper()
	if len(r.DeprecatedCalls) == 0 {
		return true
	}
	scope := "namespace " + r.Namespace
	if r.Namespace == "" {
		scope = "every namespace"
	}
	calls := make([]string, 0, len(r.DeprecatedCalls))
	for _, call := range r.DeprecatedCalls {
		calls = append(calls, call.String())
	}
	t.Errorf("%s", failure("deprecated operations called", scope, calls))
	return false
}

// AssertVerified fails the test (t.Errorf) with the sandbox's account unless the verification
// passed, and returns whether it did.
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

// failure lists items under a heading, one per line.
func failure(what, scope string, items []string) string {
	return fmt.Sprintf("%s (%s):\n- %s", what, scope, strings.Join(items, "\n- "))
}
