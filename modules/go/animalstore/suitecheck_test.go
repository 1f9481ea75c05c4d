package animalstore_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The README's end-of-suite check (internal/suitecheck), run as a suite of its own: it passes when
// the suite called listOrders, in a namespace deleted since, and fails the run (every test
// passing) when it did not.
func TestSuiteCheck_failsTheRunWhenAResponseIsNeverExercised(t *testing.T) {
	requireDocker(t)
	if testing.Short() {
		t.Skip("runs go test twice")
	}
	run := func(skipOrders string) (string, error) {
		cmd := exec.Command("go", "test", "-count=1", "-v", "./internal/suitecheck")
		cmd.Env = append(os.Environ(), "ANIMAL_STORE_IMAGE="+sandboxImage, "SUITECHECK_RUN=1", "SUITECHECK_SKIP_ORDERS="+skipOrders)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := run("0")
	require.NoError(t, err, "the suite that called listOrders passes:\n%s", out)

	out, err = run("1")
	require.Error(t, err, "the suite that did not call listOrders fails:\n%s", out)
	require.Contains(t, out, "--- PASS: TestOrders", "every test passed")
	require.NotContains(t, out, "--- FAIL")
	require.Contains(t, out, "end-of-suite check failed: documented responses never exercised (every namespace):\n- listOrders (GET /v1/store/orders): default")
	require.True(t, strings.HasSuffix(strings.TrimSpace(out), "FAIL"), "go test says FAIL:\n%s", out)
}
