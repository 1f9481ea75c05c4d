package animalstore_test

import (
	"encoding/json"
	"net/http"
	"os"
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

	endpoint, err := ctr.PortEndpoint(t.Context(), "4010/tcp", "http")
	require.NoError(t, err)
	resp, _ := send(t, http.MethodGet, endpoint+"/healthz", http.Header{}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	baseURL, err := ctr.BaseURL(t.Context())
	require.NoError(t, err)
	require.Equal(t, endpoint+"/v1", baseURL)
	require.Equal(t, sharedAPIKey, ctr.APIKey())
	require.Equal(t, sharedAdminToken, ctr.AdminToken())
	require.Nil(t, ctr.CACert(), "no TLS, no CA")
	require.Nil(t, ctr.TLSConfig())
}

// The options are the sandbox's settings, in its environment; the credentials are read back
// from the container, whichever option set them last.
func TestRun_settings(t *testing.T) {
	requireDocker(t)
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []testcontainers.ContainerCustomizer
		pets []api.Pet
	}{
		{"fixtures", opts(animalstore.WithFixtures("testdata/pets.json")), []api.Pet{
			{ID: 1, Name: "Fixture Fox", CategoryID: 1, Status: api.Available},
			{ID: 2, Name: "Fixture Finch", CategoryID: 2, Status: api.Sold},
		}},
		{"seed count 0", opts(animalstore.WithSeed(1), animalstore.WithSeedCount(0)), []api.Pet{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctr, err := animalstore.Run(t.Context(), sandboxImage, append(tc.opts, animalstore.WithInMemory(),
				animalstore.WithAPIKey("module-key"), testcontainers.WithEnv(map[string]string{"API_KEYS": "env-key"}))...)
			testcontainers.CleanupContainer(t, ctr)
			require.NoError(t, err)
			require.Equal(t, "env-key", ctr.APIKey())
			// No WithAdminToken: a random token of this start, never a published default.
			require.Regexp(t, `^[A-Z2-7]{26}$`, ctr.AdminToken())

			client, err := ctr.Control(t.Context())
			require.NoError(t, err)
			pets, err := client.ExportPetsWithResponse(t.Context(), nil)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, pets.StatusCode(), "exportPets answered %s", pets.Body)
			require.Equal(t, tc.pets, *pets.JSON200)
		})
	}
}

// A start the sandbox refuses fails at once with what it printed (the server's tests in test/
// hold each of its rules).
func TestRun_refusedSettingFailsFast(t *testing.T) {
	requireDocker(t)
	t.Parallel()
	for _, tc := range []struct {
		name    string
		opts    []testcontainers.ContainerCustomizer
		message string
	}{
		{"a setting", opts(animalstore.WithSeedCount(1_000_001)),
			`the sandbox said: animal-store-sandbox: SEED_COUNT must be a whole number from 0 to 1000000, got "1000001"`},
		{"a TLS setting", opts(animalstore.WithTLS(), testcontainers.WithEnv(map[string]string{"TLS_NAMES": "not a name"})),
			`the sandbox said: animal-store-sandbox: TLS_NAMES: "not a name" is not a host name or IP address`},
		{"exits printing nothing", opts(testcontainers.WithEntrypoint("node", "-e", "process.exit(3)")),
			`the sandbox exited with code 3 and printed nothing`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			started := time.Now()
			ctr, err := animalstore.Run(t.Context(), sandboxImage, tc.opts...)
			testcontainers.CleanupContainer(t, ctr)
			require.ErrorContains(t, err, tc.message)
			// The wait strategy's own timeout is 60 s: this bound shows it was not waited out.
			require.Less(t, time.Since(started), 20*time.Second)
			require.NotNil(t, ctr, "the exited container is returned, to be terminated")
		})
	}
}

func TestRun_missingImageFailsFast(t *testing.T) {
	requireDocker(t)
	t.Parallel()
	const img = "animal-store-sandbox:9.9.9-mistyped"
	ctr, err := animalstore.Run(t.Context(), img)
	testcontainers.CleanupContainer(t, ctr)
	require.ErrorContains(t, err, "the image "+img+" is not on this Docker engine, and pulling it failed")
	require.ErrorContains(t, err, "npm run image")
	require.ErrorContains(t, err, "docker load")
	require.Nil(t, ctr, "no container was created")
}

func opts(customizers ...testcontainers.ContainerCustomizer) []testcontainers.ContainerCustomizer {
	return customizers
}
