package control

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// BundleFolder is where SaveBundleOnFailure saves when `go test` has no -outputdir: relative to
// the package's folder, in which go test runs its tests.
const BundleFolder = "test-results"

// What a test's name may keep in a file name; the rest becomes "_" (a subtest's "/" too).
var notInFileName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// SaveBundleOnFailure has t save namespace's bundle (GET /__admin/bundle, docs/bundle.md) when
// t fails: at its end, as <TestName>.bundle.json in the folder of `go test -outputdir` when
// given, else in BundleFolder. Call it once the namespace is ready, after registering any cleanup
// that deletes it: cleanups run last registered first, so the bundle is taken before.
func (c *ClientWithResponses) SaveBundleOnFailure(t testing.TB, namespace string) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		path := filepath.Join(bundleFolder(), BundleFileName(t.Name()))
		if err := c.SaveBundle(namespace, path); err != nil {
			t.Errorf("save the sandbox's bundle: %v", err)
			return
		}
		t.Logf("the sandbox's bundle of this test: %s", path)
	})
}

// SaveBundle writes namespace's bundle to path as the sandbox sent it (secrets already cut).
func (c *ClientWithResponses) SaveBundle(namespace, path string) error {
	// Not the test's context: it is cancelled before the cleanups run.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	answer, err := c.GetBundleWithResponse(ctx, &GetBundleParams{Namespace: &namespace})
	if err != nil {
		return err
	}
	if answer.StatusCode() != http.StatusOK {
		return fmt.Errorf("GET /bundle answered %d: %s", answer.StatusCode(), answer.Body)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, answer.Body, 0o644)
}

// BundleFileName is the file SaveBundleOnFailure names after a test: TestX/sub gives
// TestX_sub.bundle.json.
func BundleFileName(testName string) string {
	return notInFileName.ReplaceAllString(testName, "_") + ".bundle.json"
}

// bundleFolder is go test's -outputdir (passed to the test binary as -test.outputdir), else BundleFolder.
func bundleFolder() string {
	if dir := flag.Lookup("test.outputdir"); dir != nil && dir.Value.String() != "" {
		return dir.Value.String()
	}
	return BundleFolder
}
