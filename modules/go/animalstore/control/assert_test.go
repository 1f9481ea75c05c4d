package control_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

// recorder is a testing.TB that records what an assertion reports instead of failing the test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestAssertions(t *testing.T) {
	const createPetMissing = "createPet (POST /v1/pets), namespace checkout: never exercised 400 invalid_body, 401"
	report := control.CoverageReport{
		Namespace: "checkout",
		Operations: []control.OperationCoverage{
			{OperationID: "listPets", Method: "GET", Path: "/v1/pets", Responses: []control.ResponseCoverage{{Label: "200", Reachable: true, Exercised: true}},
				Complete: true, Message: "listPets (GET /v1/pets), namespace checkout: every reachable documented response exercised"},
			{OperationID: "createPet", Method: "POST", Path: "/v1/pets", Responses: []control.ResponseCoverage{
				{Label: "201", Reachable: true, Exercised: true}, {Label: "400 invalid_body", Reachable: true},
				{Label: "400 malformed_json"}, {Label: "401", Reachable: true},
			}, Message: createPetMissing},
		},
		// The sandbox words the outcome (test/control/coverage.test.ts): the assertion reports it as it is.
		Message: createPetMissing,
		DeprecatedCalls: []control.DeprecatedCall{{OperationID: "getPet", Method: "GET", Path: "/v1/pets/{petId}", Calls: 2,
			Sunset: time.Date(2030, 12, 5, 0, 0, 0, 0, time.UTC), Replacement: "/v1/pets"}},
	}
	everywhere := report
	everywhere.Namespace = ""
	verified := control.VerifyResult{Namespace: "checkout", Message: "failed:\n- createPet: expected exactly 1 call"}

	for _, tc := range []struct {
		name      string
		assertion func(testing.TB) bool
		// failure is what the assertion reports; "" when it passes.
		failure string
	}{
		{"every response of one operation", func(tb testing.TB) bool { return report.AssertAllResponsesExercised(tb, "listPets") }, ""},
		{"every response of every operation", func(tb testing.TB) bool { return report.AssertAllResponsesExercised(tb) }, createPetMissing},
		{"every response of the operations named", func(tb testing.TB) bool {
			return report.AssertAllResponsesExercised(tb, "listPets", "createPet")
		}, createPetMissing},
		{"an operation the API lacks", func(tb testing.TB) bool { return report.AssertAllResponsesExercised(tb, "nope") },
			"the API has no operation nope; it has listPets, createPet"},
		{"no deprecated calls", everywhere.AssertNoDeprecatedCalls,
			"deprecated operations called (every namespace):\n- getPet (GET /v1/pets/{petId}): 2 calls, sunset 2030-12-05, use /v1/pets instead"},
		{"no deprecated calls, none made", control.CoverageReport{}.AssertNoDeprecatedCalls, ""},
		{"verified", verified.AssertVerified, "verification (namespace checkout) failed:\n- createPet: expected exactly 1 call"},
		{"verified, passed", control.VerifyResult{Passed: true}.AssertVerified, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			require.Equal(t, tc.failure == "", tc.assertion(rec))
			if tc.failure == "" {
				require.Empty(t, rec.errors)
			} else {
				require.Equal(t, []string{tc.failure}, rec.errors)
			}
		})
	}
}
