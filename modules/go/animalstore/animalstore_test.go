package animalstore_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

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

	baseURL, err := ctr.BaseURL(t.Context())
	require.NoError(t, err)
	require.Regexp(t, `^http://`+regexp.QuoteMeta(dialledHost(t, ctr))+`:\d+/v1$`, baseURL)
	resp, _ := send(t, http.MethodGet, strings.TrimSuffix(baseURL, "/v1")+"/healthz", http.Header{}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, sharedAPIKey, ctr.APIKey())
	require.Equal(t, sharedAdminToken, ctr.AdminToken())
	require.Nil(t, ctr.CACert(), "no TLS, no CA")
	require.Nil(t, ctr.TLSConfig())
}

// An engine may publish the sandbox's port under another number on IPv6 (moby/moby#42442), while
// another container holds the IPv4 binding's number on IPv6. On a machine where localhost is ::1
// first, the module's URL still reaches its own sandbox.
func TestRun_anotherContainerHoldsThePortsNumberOnIPv6(t *testing.T) {
	requireDocker(t)
	t.Parallel()
	// A port free on both families: the listener on [::] holds it on IPv4 too.
	listener, err := net.Listen("tcp", "[::]:0")
	if err != nil {
		t.Skipf("no IPv6: %v", err)
	}
	port := strconv.Itoa(listener.Addr().(*net.TCPAddr).Port)
	require.NoError(t, listener.Close())
	publish := func(bindings ...network.PortBinding) testcontainers.CustomizeRequestOption {
		return testcontainers.WithHostConfigModifier(func(hostConfig *container.HostConfig) {
			hostConfig.PortBindings = network.PortMap{network.MustParsePort("4010/tcp"): bindings}
		})
	}
	// Not the module's Run: the other sandbox is reached on IPv6 alone.
	other, err := testcontainers.Run(t.Context(), sandboxImage, testcontainers.WithExposedPorts("4010/tcp"),
		testcontainers.WithEnv(map[string]string{"API_KEYS": "other-key", "DATA_FILE": ":memory:"}),
		publish(network.PortBinding{HostIP: netip.IPv6Unspecified(), HostPort: port}),
		testcontainers.WithWaitStrategy(wait.ForLog("Animal Store sandbox listening")))
	testcontainers.CleanupContainer(t, other)
	require.NoError(t, err)
	ctr, err := animalstore.Run(t.Context(), sandboxImage, animalstore.WithInMemory(), animalstore.WithAPIKey("own-key"),
		publish(network.PortBinding{HostIP: netip.IPv4Unspecified(), HostPort: port}, network.PortBinding{HostIP: netip.IPv6Unspecified()}))
	testcontainers.CleanupContainer(t, ctr)
	require.NoError(t, err)

	baseURL, err := ctr.BaseURL(t.Context())
	require.NoError(t, err)
	ipv6First := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, address string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(address)
			if err != nil || host != "localhost" {
				return (&net.Dialer{}).DialContext(ctx, network, address)
			}
			if conn, err := (&net.Dialer{}).DialContext(ctx, "tcp6", net.JoinHostPort("::1", port)); err == nil {
				return conn, nil
			}
			return (&net.Dialer{}).DialContext(ctx, "tcp4", net.JoinHostPort("127.0.0.1", port))
		},
	}}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, baseURL+"/pets", nil)
	require.NoError(t, err)
	req.Header = ctr.APIHeader("")
	resp, err := ipv6First.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET %s/pets with this sandbox's key (the other one answers 401)", baseURL)
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
