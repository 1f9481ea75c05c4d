package animalstore_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore"
	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

// sandboxImage is the image under test.
var sandboxImage = cmp.Or(os.Getenv("ANIMAL_STORE_IMAGE"), animalstore.DefaultImage)

// The shared sandbox's credentials: configured ones, so that the tests see them applied.
const (
	sharedAPIKey     = "shared-api-key"
	sharedAdminToken = "shared-admin-token"
)

// noDocker is why no Docker engine can be reached, "" when one can.
var noDocker string

// shared is the package's one sandbox, started by the first test that needs it; each test works
// in a namespace of its own.
var shared struct {
	once sync.Once
	ctr  *animalstore.Container
	err  error
}

func TestMain(m *testing.M) {
	flag.Parse()
	noDocker = dockerProblem()
	if noDocker != "" && os.Getenv("REQUIRE_DOCKER") != "1" {
		// Tests skip themselves; examples cannot, so they are left out.
		fmt.Printf("no Docker engine (%s): the container tests skip and the examples do not run\n", noDocker)
		skip := "^Example"
		if current := flag.Lookup("test.skip").Value.String(); current != "" {
			skip = current + "|" + skip
		}
		if err := flag.Set("test.skip", skip); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}

	code := m.Run()
	if err := testcontainers.TerminateContainer(shared.ctr); err != nil {
		fmt.Fprintf(os.Stderr, "terminate the shared sandbox: %v\n", err)
		code = cmp.Or(code, 1)
	}
	os.Exit(code)
}

// dockerProblem returns why the Docker engine cannot be used, or "".
func dockerProblem() (problem string) {
	// Without an engine, finding the provider may panic rather than fail.
	defer func() {
		if r := recover(); r != nil {
			problem = fmt.Sprint(r)
		}
	}()
	provider, err := testcontainers.ProviderDefault.GetProvider()
	if err != nil {
		return err.Error()
	}
	defer provider.Close()
	if err := provider.Health(context.Background()); err != nil {
		return err.Error()
	}
	return ""
}

// requireDocker skips the test without a Docker engine, or fails it when REQUIRE_DOCKER=1.
func requireDocker(t *testing.T) {
	t.Helper()
	if noDocker == "" {
		return
	}
	if os.Getenv("REQUIRE_DOCKER") == "1" {
		t.Fatalf("REQUIRE_DOCKER=1 but no Docker engine can be reached: %s", noDocker)
	}
	t.Skipf("no Docker engine: %s", noDocker)
}

// sharedSandbox returns the package's sandbox, started on first use.
func sharedSandbox(t *testing.T) *animalstore.Container {
	t.Helper()
	requireDocker(t)
	shared.once.Do(func() {
		// Not the test's context: the sandbox outlives the test that starts it (TestMain ends it).
		shared.ctr, shared.err = animalstore.Run(context.Background(), sandboxImage,
			animalstore.WithAPIKey(sharedAPIKey),
			animalstore.WithAdminToken(sharedAdminToken),
			animalstore.WithInMemory(),
		)
	})
	require.NoError(t, shared.err, "start the shared sandbox")
	return shared.ctr
}

// dialledHost is the host the module dials the sandbox at: the engine's, localhost as 127.0.0.1.
func dialledHost(t *testing.T, ctr *animalstore.Container) string {
	t.Helper()
	host, err := ctr.Host(t.Context())
	require.NoError(t, err)
	if host == "localhost" {
		return "127.0.0.1"
	}
	return host
}

var notInNamespaceName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// namespaceName names a namespace of the test's own; suffix tells apart several of one test.
func namespaceName(t *testing.T, suffix string) string {
	name := notInNamespaceName.ReplaceAllString(t.Name()+"."+suffix, "-")
	return name[:min(len(name), 64)]
}

// testNamespace returns the control client of the shared sandbox, and namespaceName(t, suffix) at
// its initial data.
func testNamespace(t *testing.T, suffix string) (*control.ClientWithResponses, string) {
	t.Helper()
	admin, err := sharedSandbox(t).Control(t.Context())
	require.NoError(t, err)
	name := namespaceName(t, suffix)
	// With -count=N a test runs again on the same sandbox: start from the initial data each time.
	reset, err := admin.ResetWithResponse(t.Context(), &control.ResetParams{Namespace: &name}, control.ResetJSONRequestBody{})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, reset.StatusCode(), "%s", reset.Body)
	return admin, name
}

// callAPI sends an API request in the namespace, with the shared sandbox's key; body, when not
// nil, is sent as JSON.
func callAPI(t *testing.T, namespace, method, path string, body any) (*http.Response, []byte) {
	t.Helper()
	baseURL, err := sharedSandbox(t).BaseURL(t.Context())
	require.NoError(t, err)
	return send(t, method, baseURL+path, sharedSandbox(t).APIHeader(namespace), body)
}

// send sends one request and returns the response, its body read and closed.
func send(t *testing.T, method, url string, header http.Header, body any) (*http.Response, []byte) {
	t.Helper()
	var content io.Reader
	if body != nil {
		encoded, err := json.Marshal(body)
		require.NoError(t, err)
		content = bytes.NewReader(encoded)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, content)
	require.NoError(t, err)
	req.Header = header.Clone()
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, answer
}
