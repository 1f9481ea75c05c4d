package animalstore_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore"
	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/api"
)

// A release publishes the module and the image under the sandbox's version.
func TestDefaultImageIsTheProjectsVersion(t *testing.T) {
	content, err := os.ReadFile("../../../package.json")
	require.NoError(t, err)
	var project struct{ Version string }
	require.NoError(t, json.Unmarshal(content, &project))
	require.Equal(t, project.Version, animalstore.Version)
	require.Equal(t, "animal-store-sandbox:"+project.Version, animalstore.DefaultImage)
}

func TestRun(t *testing.T) {
	t.Parallel()
	ctr := sharedSandbox(t)

	// Run waited for this; it still holds.
	endpoint, err := ctr.PortEndpoint(t.Context(), "4010/tcp", "http")
	require.NoError(t, err)
	resp, _ := send(t, http.MethodGet, endpoint+"/healthz", http.Header{}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)

	baseURL, err := ctr.BaseURL(t.Context())
	require.NoError(t, err)
	require.Equal(t, endpoint+"/v1", baseURL)
	require.Equal(t, sharedAPIKey, ctr.APIKey())
	require.Equal(t, sharedAdminToken, ctr.AdminToken())
}

func TestRun_keyedList(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")

	resp, answer := callAPI(t, ns, http.MethodGet, "/pets?limit=5", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "answer: %s", answer)
	require.Len(t, decode[[]api.Pet](t, answer), 5)

	for name, header := range map[string]http.Header{
		"no key":          {},
		"the default key": {"Authorization": {"Bearer " + "sandbox-api-key"}},
		"the admin token": {"Authorization": {"Bearer " + sharedAdminToken}},
	} {
		resp, answer := send(t, http.MethodGet, ns.BaseURL()+"/pets", header, nil)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s: %s", name, answer)
		refusal := decode[api.Error](t, answer)
		require.Equal(t, http.StatusUnauthorized, refusal.Status, name)
		require.Equal(t, "unauthorized", refusal.Code, name)
		require.NotEmpty(t, refusal.Message, name)
	}
}

func TestRun_createThenGet(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, "")

	resp, answer := callAPI(t, ns, http.MethodPost, "/pets", map[string]any{"name": "Go Gopher", "categoryId": 1, "status": "available"})
	require.Equal(t, http.StatusCreated, resp.StatusCode, "answer: %s", answer)
	created := decode[api.Pet](t, answer)
	require.Equal(t, api.Pet{ID: created.ID, Name: "Go Gopher", CategoryID: 1, Status: api.Available}, created)
	require.Equal(t, "/v1/pets/"+strconv.FormatInt(created.ID, 10), resp.Header.Get("Location"))

	location, err := url.Parse(ns.BaseURL())
	require.NoError(t, err)
	location = location.ResolveReference(&url.URL{Path: resp.Header.Get("Location")})
	resp, answer = send(t, http.MethodGet, location.String(), ns.Header(), nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "answer: %s", answer)
	require.Equal(t, created, decode[api.Pet](t, answer))
}

func TestRun_fixturesAndCredentialsFromEnv(t *testing.T) {
	requireDocker(t)
	t.Parallel()

	ctr, err := animalstore.Run(t.Context(), sandboxImage,
		animalstore.WithFixtures("testdata/pets.json"),
		animalstore.WithInMemory(),
		// Set directly, after the module's option: APIKey() is what the container was given.
		animalstore.WithAPIKey("module-key"),
		testcontainers.WithEnv(map[string]string{"API_KEYS": "env-key"}),
	)
	testcontainers.CleanupContainer(t, ctr)
	require.NoError(t, err)
	require.Equal(t, "env-key", ctr.APIKey())
	// No WithAdminToken: a random token of this start, never the published default.
	require.Regexp(t, `^[A-Z2-7]{26}$`, ctr.AdminToken())

	admin, err := ctr.Control(t.Context())
	require.NoError(t, err)
	resp, answer := callAPI(t, admin, http.MethodGet, "/pets", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "answer: %s", answer)
	require.Equal(t, []api.Pet{
		{ID: 1, Name: "Fixture Fox", CategoryID: 1, Status: api.Available},
		{ID: 2, Name: "Fixture Finch", CategoryID: 2, Status: api.Sold},
	}, decode[[]api.Pet](t, answer))
}

func TestRun_badSettingsFailFast(t *testing.T) {
	requireDocker(t)
	t.Parallel()
	tests := []struct {
		name string
		opts []testcontainers.ContainerCustomizer
		// message is what the sandbox prints before it exits.
		message *regexp.Regexp
	}{
		{
			"seed not a number",
			opts(testcontainers.WithEnv(map[string]string{"SEED": "abc"})),
			regexp.MustCompile(regexp.QuoteMeta(`SEED must be a whole number from 0 to 4294967295, got "abc"`)),
		},
		{
			"fixtures refused",
			opts(animalstore.WithFixtures("testdata/bad-pets.json")),
			regexp.MustCompile(`Fixtures file /fixtures/bad-pets\.json is refused: .*categoryId`),
		},
		{
			// No copy of the server's rule in the module: the sandbox's own message.
			"seed count past the bound",
			opts(animalstore.WithSeedCount(1_000_001)),
			regexp.MustCompile(regexp.QuoteMeta(`SEED_COUNT must be a whole number from 0 to 1000000, got "1000001"`)),
		},
		{
			"admin token equal to the API key",
			opts(animalstore.WithAPIKey("same"), animalstore.WithAdminToken("same")),
			regexp.MustCompile(`ADMIN_TOKEN must differ from every API key`),
		},
		{
			"API key with a space",
			opts(animalstore.WithAPIKey("has space")),
			regexp.MustCompile(`API_KEYS: key number 1 has characters a bearer token cannot carry`),
		},
		{
			"fixtures and a seed",
			opts(animalstore.WithFixtures("testdata/pets.json"), animalstore.WithSeed(7)),
			regexp.MustCompile(`FIXTURES and SEED both choose the initial data`),
		},
		{
			"exits printing nothing",
			opts(testcontainers.WithEntrypoint("node", "-e", "process.exit(3)")),
			regexp.MustCompile(`the sandbox exited with code 3 and printed nothing`),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			started := time.Now()
			ctr, err := animalstore.Run(t.Context(), sandboxImage, tc.opts...)
			testcontainers.CleanupContainer(t, ctr)
			elapsed := time.Since(started)

			require.Error(t, err)
			require.Regexp(t, tc.message, err.Error())
			// The wait strategy's own timeout is 60 s: this bound shows it was not waited out.
			require.Less(t, elapsed, 20*time.Second, "Run failed after %s", elapsed)
			require.NotNil(t, ctr, "the exited container is returned, to be terminated")
			t.Logf("failed after %s: %s", elapsed.Round(time.Millisecond), strings.ReplaceAll(err.Error(), "\n", " "))
		})
	}
}

func TestRun_missingImageFailsFast(t *testing.T) {
	requireDocker(t)
	t.Parallel()
	const img = "animal-store-sandbox:9.9.9-mistyped"
	started := time.Now()
	ctr, err := animalstore.Run(t.Context(), img)
	testcontainers.CleanupContainer(t, ctr)
	elapsed := time.Since(started)

	require.ErrorContains(t, err, "the image "+img+" is not on this Docker engine")
	require.ErrorContains(t, err, "npm run image")
	require.ErrorContains(t, err, "docker load")
	require.Nil(t, ctr, "no container was created")
	// One refused pull, not a pull retried until a timeout.
	require.Less(t, elapsed, 5*time.Second, "Run failed after %s", elapsed)
}

func opts(customizers ...testcontainers.ContainerCustomizer) []testcontainers.ContainerCustomizer {
	return customizers
}

// The module copies no rule of the sandbox's: a seed count of 0, which the sandbox takes, starts
// with no pets.
func TestRun_seedCountZero(t *testing.T) {
	requireDocker(t)
	t.Parallel()
	ctr, err := animalstore.Run(t.Context(), sandboxImage, animalstore.WithSeed(1), animalstore.WithSeedCount(0), animalstore.WithInMemory())
	testcontainers.CleanupContainer(t, ctr)
	require.NoError(t, err)
	client, err := ctr.Control(t.Context())
	require.NoError(t, err)
	resp, answer := callAPI(t, client, http.MethodGet, "/pets", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "answer: %s", answer)
	require.Empty(t, decode[[]api.Pet](t, answer))
}
