package animalstore_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore"
)

// With WithTLS the sandbox serves HTTPS and HTTP/2 with a certificate of a CA made at its start:
// the module hands out that CA, its health wait and control client trust it, and so does every
// client here, verification on.
func TestRun_tls(t *testing.T) {
	requireDocker(t)
	t.Parallel()
	ctx := t.Context()
	ctr, err := animalstore.Run(ctx, sandboxImage, animalstore.WithTLS(), animalstore.WithInMemory())
	testcontainers.CleanupContainer(t, ctr)
	require.NoError(t, err)
	baseURL, err := ctr.BaseURL(ctx)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(baseURL, "https://"+dialledHost(t, ctr)+":"), baseURL)

	t.Run("HTTPS trusting the CA", func(t *testing.T) {
		// net/http speaks HTTP/1.1 to a TLSClientConfig of one's own unless asked for HTTP/2.
		proto, err := listPets(t, ctr, &http.Client{Transport: &http.Transport{TLSClientConfig: ctr.TLSConfig()}})
		require.NoError(t, err)
		require.Equal(t, 1, proto)
	})

	t.Run("HTTP/2 trusting the CA", func(t *testing.T) {
		pool := x509.NewCertPool()
		require.True(t, pool.AppendCertsFromPEM(ctr.CACert())) // the CA of this start
		client := &http.Client{Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{RootCAs: pool}, // or ctr.TLSConfig(): the same
			ForceAttemptHTTP2: true,                       // HTTP/2 through ALPN
		}}
		proto, err := listPets(t, ctr, client)
		require.NoError(t, err)
		require.Equal(t, 2, proto)
	})

	t.Run("no other CA", func(t *testing.T) {
		// The machine's CAs do not open it: verification is on, and the module's CA is the one that works.
		_, err := listPets(t, ctr, &http.Client{Transport: &http.Transport{}})
		var unknownAuthority x509.UnknownAuthorityError
		require.True(t, errors.As(err, &unknownAuthority), "%v", err)
	})

	t.Run("the control API", func(t *testing.T) {
		admin, err := ctr.Control(ctx)
		require.NoError(t, err)
		pets, err := admin.ExportPetsWithResponse(ctx, nil)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, pets.StatusCode(), "%s", pets.Body)
		require.NotEmpty(t, *pets.JSON200)
	})
}

// The certificate names the host Testcontainers reaches the sandbox on, whichever it is: here this
// machine's name, which the certificate has not otherwise (a container's name is its own).
func TestRun_tlsCertificateNamesTheEnginesHost(t *testing.T) {
	requireDocker(t)
	host, err := os.Hostname()
	require.NoError(t, err)
	if _, err := net.LookupHost(host); err != nil {
		t.Skipf("this machine's name %q does not resolve: %v", host, err)
	}
	// Each start reads it; the environment is the process's, so this test runs alone.
	t.Setenv("TESTCONTAINERS_HOST_OVERRIDE", host)
	ctr, err := animalstore.Run(t.Context(), sandboxImage, animalstore.WithTLS(), animalstore.WithInMemory())
	testcontainers.CleanupContainer(t, ctr)
	require.NoError(t, err) // the health wait verified the certificate for host
	baseURL, err := ctr.BaseURL(t.Context())
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(baseURL, "https://"+host+":"), baseURL)
	proto, err := listPets(t, ctr, &http.Client{Transport: &http.Transport{TLSClientConfig: ctr.TLSConfig()}})
	require.NoError(t, err)
	require.Equal(t, 1, proto)
}

// Without TESTCONTAINERS_HOST_OVERRIDE, as a team's CI runs: inside a container (a /.dockerenv),
// Testcontainers dials a gateway, which the certificate names too. The wait reads the log, which
// dials nothing: a gateway this machine cannot reach still gets its answer here.
func TestRun_tlsCertificateNamesTheHostItDials(t *testing.T) {
	requireDocker(t)
	t.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "") // restored after the test, which runs alone
	require.NoError(t, os.Unsetenv("TESTCONTAINERS_HOST_OVERRIDE"))
	ctr, err := animalstore.Run(t.Context(), sandboxImage, animalstore.WithTLS(), animalstore.WithInMemory(),
		testcontainers.WithWaitStrategy(wait.ForLog("listening")))
	testcontainers.CleanupContainer(t, ctr)
	require.NoError(t, err)
	host, err := ctr.Host(t.Context())
	require.NoError(t, err)
	inspect, err := ctr.Inspect(t.Context())
	require.NoError(t, err)
	names := []string{"localhost", "127.0.0.1", "::1"}
	for _, entry := range inspect.Config.Env {
		if value, ok := strings.CutPrefix(entry, "TLS_NAMES="); ok {
			names = append(names, strings.Split(value, ",")...)
		}
	}
	require.Contains(t, names, host)
}

// listPets lists the pets through client, and returns the major version of the HTTP it answered in.
func listPets(t *testing.T, ctr *animalstore.Container, client *http.Client) (int, error) {
	t.Helper()
	t.Cleanup(client.CloseIdleConnections)
	baseURL, err := ctr.BaseURL(t.Context())
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, baseURL+"/pets", nil)
	require.NoError(t, err)
	req.Header = ctr.APIHeader("")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return resp.ProtoMajor, nil
}
