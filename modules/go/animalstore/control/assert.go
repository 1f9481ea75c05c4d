package control

import (
	"errors"
	"fmt"
	"strings"
	"testing"
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

// AssertNoDeprecatedCalls fails the test (t.Errorf) with the sandbox's message naming each
// deprecated operation called, its sunset and replacement, and returns whether none was.
func (r CoverageReport) AssertNoDeprecatedCalls(t testing.TB) bool {
	t.Helper()
	if len(r.DeprecatedCalls) == 0 {
		return true
	}
	t.Errorf("%s", r.DeprecatedCallsMessage)
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
