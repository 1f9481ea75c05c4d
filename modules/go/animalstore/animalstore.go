// Package animalstore is a Testcontainers module for the Animal Store sandbox, with a client of its
// control API generated from its spec (the control package).
package animalstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

const (
	// Version is this module's version, which a release tags it with (modules/go/v<Version>)
	// and publishes the sandbox's image under.
	Version = "0.1.0"
	// DefaultImage is the sandbox's image of this module's version.
	DefaultImage = "animal-store-sandbox:" + Version

	httpPort = "4010/tcp"
	// caPath is where the sandbox writes the CA of its certificate under TLS=auto (TLS_CA_OUT).
	caPath = "/tmp/animal-store-ca.pem"
	// maxStartOutput bounds the container output that a failed start quotes.
	maxStartOutput = 4096
)

// Container is a running Animal Store sandbox.
type Container struct {
	testcontainers.Container
	apiKey     string
	adminToken string
	caCert     []byte       // the PEM of the CA the sandbox made at start; nil without TLS
	tlsConfig  *tls.Config  // trusts caCert alone; nil without TLS
	client     *http.Client // the control API's, trusting the CA with TLS
}

// Run starts the sandbox from img and waits until GET /healthz answers 200 (over HTTPS trusting the
// sandbox's CA alone, with WithTLS). A sandbox that refuses its settings fails Run at once with its
// own message. As with every module, the container may be non-nil with an error, to terminate.
func Run(ctx context.Context, img string, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	if err := requireImage(ctx, img); err != nil {
		return nil, err
	}
	host, err := engineHost(ctx)
	if err != nil {
		return nil, fmt.Errorf("animalstore: the Docker engine's host: %w", err)
	}
	opts = append([]testcontainers.ContainerCustomizer{
		testcontainers.WithExposedPorts(httpPort),
		// Each start brings its own key and control token, unless an option sets them.
		testcontainers.WithEnv(map[string]string{"API_KEYS": rand.Text(), "ADMIN_TOKEN": rand.Text()}),
		testcontainers.WithWaitStrategy(&healthy{}),
	}, opts...)
	// Last, to see every option's settings.
	opts = append(opts, withCertificateName(host))
	ctr, err := testcontainers.Run(ctx, img, opts...)
	var c *Container
	if ctr != nil {
		c = &Container{Container: ctr}
	}
	if err != nil {
		return c, fmt.Errorf("run animalstore: %w", withExitOutput(ctx, ctr, err))
	}

	given, err := readSettings(ctx, ctr)
	if err != nil {
		return c, err
	}
	c.apiKey, c.adminToken = given.apiKey, given.adminToken
	c.client = http.DefaultClient
	if given.tls {
		// The sandbox answers its health check: the CA's file is there.
		if c.caCert, c.tlsConfig, err = readCA(ctx, ctr, given.caPath); err != nil {
			return c, fmt.Errorf("animalstore: copy the sandbox's CA: %w", err)
		}
		transport := http.DefaultTransport.(*http.Transport).Clone()
		transport.TLSClientConfig = c.TLSConfig()
		c.client = &http.Client{Transport: transport}
	}
	return c, nil
}

// BaseURL is the API's base URL on the host, e.g. http://127.0.0.1:32768/v1 (https with WithTLS).
func (c *Container) BaseURL(ctx context.Context) (string, error) {
	sandboxURL, err := c.sandboxURL(ctx)
	if err != nil {
		return "", err
	}
	return sandboxURL + "/v1", nil
}

// CACert is the PEM of the CA the sandbox made at this start (WithTLS); nil without TLS.
func (c *Container) CACert() []byte {
	return bytes.Clone(c.caCert)
}

// TLSConfig trusts the sandbox's CA (CACert) alone, new at each call for the caller to change; nil
// without TLS. The sandbox's certificate names the host of BaseURL.
func (c *Container) TLSConfig() *tls.Config {
	return c.tlsConfig.Clone()
}

// APIKey is the key to send as "Authorization: Bearer <key>".
func (c *Container) APIKey() string {
	return c.apiKey
}

// AdminToken is the control API's token.
func (c *Container) AdminToken() string {
	return c.adminToken
}

// APIHeader returns the headers of an API request in namespace: Authorization with the API key,
// and X-Sandbox-Namespace unless namespace is "" (the default namespace).
func (c *Container) APIHeader(namespace string) http.Header {
	header := http.Header{"Authorization": {"Bearer " + c.apiKey}}
	if namespace != "" {
		header.Set(control.NamespaceHeader, namespace)
	}
	return header
}

// Control returns a client of the sandbox's control API with its admin token (trusting its CA).
func (c *Container) Control(ctx context.Context) (*control.ClientWithResponses, error) {
	sandboxURL, err := c.sandboxURL(ctx)
	if err != nil {
		return nil, err
	}
	return control.New(sandboxURL, c.adminToken, control.WithHTTPClient(c.client))
}

// sandboxURL is the sandbox's root on the host, e.g. http://127.0.0.1:32768.
func (c *Container) sandboxURL(ctx context.Context) (string, error) {
	scheme := "http"
	if c.tlsConfig != nil {
		scheme = "https"
	}
	hostPort, err := published(ctx, c)
	if err != nil {
		return "", fmt.Errorf("animalstore: sandbox URL: %w", err)
	}
	return scheme + "://" + hostPort, nil
}

// published is the host:port the sandbox's port is published at. An engine may publish a port
// under one number on IPv4 and another on IPv6 (moby/moby#42442), and list either first; and
// "localhost" may resolve to ::1 first, where another container can hold the IPv4 binding's number.
// So the binding dialled is of the host's family, IPv4 unless the host is an IPv6 address, and
// localhost is dialled at 127.0.0.1.
func published(ctx context.Context, target wait.StrategyTarget) (string, error) {
	host, err := target.Host(ctx)
	if err != nil {
		return "", err
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ipv6 := false
	if addr, err := netip.ParseAddr(host); err == nil {
		ipv6 = addr.Is6() && !addr.Is4In6()
	}
	inspect, err := target.Inspect(ctx)
	if err != nil {
		return "", err
	}
	for key, bindings := range inspect.NetworkSettings.Ports {
		if key.String() != httpPort {
			continue
		}
		for _, binding := range bindings {
			// An unset address binds both families.
			if !binding.HostIP.IsValid() || binding.HostIP.Is6() == ipv6 {
				return net.JoinHostPort(host, binding.HostPort), nil
			}
		}
	}
	return "", fmt.Errorf("%s is not published for %s", httpPort, host)
}

// settings are those the module reads back from the container's environment, whichever option
// (or the image) set them last.
type settings struct {
	apiKey     string
	adminToken string
	tls        bool   // TLS=auto: the sandbox makes a CA and a certificate at start
	caPath     string // TLS_CA_OUT: the file it writes the CA's PEM to
}

func readSettings(ctx context.Context, target wait.StrategyTarget) (settings, error) {
	inspect, err := target.Inspect(ctx)
	if err != nil {
		return settings{}, fmt.Errorf("inspect animalstore: %w", err)
	}
	var given settings
	for _, entry := range inspect.Config.Env {
		name, value, _ := strings.Cut(entry, "=")
		switch name {
		case "API_KEYS":
			given.apiKey = value
		case "ADMIN_TOKEN":
			given.adminToken = value
		case "TLS":
			given.tls = value == "auto"
		case "TLS_CA_OUT":
			given.caPath = value
		}
	}
	if given.tls && given.caPath == "" {
		return given, errors.New("animalstore: TLS=auto without TLS_CA_OUT: the module copies the sandbox's CA " +
			"from the file TLS_CA_OUT names (WithTLS sets both)")
	}
	return given, nil
}

// healthy waits until GET /healthz answers 200 where published() says: over HTTPS with TLS=auto,
// trusting the CA the sandbox made at start alone, once written. Both waits end at the container's
// exit, or after a minute.
type healthy struct{}

func (*healthy) String() string {
	return "GET /healthz to answer 200 (over HTTPS trusting the sandbox's CA, with TLS=auto)"
}

func (*healthy) WaitUntilReady(ctx context.Context, target wait.StrategyTarget) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	given, err := readSettings(ctx, target)
	if err != nil {
		return err
	}
	scheme, transport := "http", &http.Transport{}
	defer transport.CloseIdleConnections()
	if given.tls {
		err := untilReady(ctx, target, "the sandbox's CA", func() (err error) {
			_, transport.TLSClientConfig, err = readCA(ctx, target, given.caPath)
			return err
		})
		if err != nil {
			return err
		}
		scheme = "https"
	}
	client := &http.Client{Transport: transport, Timeout: 5 * time.Second}
	return untilReady(ctx, target, "GET /healthz to answer 200", func() error {
		hostPort, err := published(ctx, target)
		if err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+hostPort+"/healthz", nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET /healthz answered %d", resp.StatusCode)
		}
		return nil
	})
}

// untilReady calls try every 100 ms until it returns nil, the container exits or ctx ends.
func untilReady(ctx context.Context, target wait.StrategyTarget, what string, try func() error) error {
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	var notYet error
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w", what, errors.Join(ctx.Err(), notYet))
		case <-ticker.C:
		}
		state, err := target.State(ctx)
		if err != nil {
			return fmt.Errorf("container state: %w", err)
		}
		if !state.Running {
			return fmt.Errorf("container exited with code %d", state.ExitCode)
		}
		if notYet = try(); notYet == nil {
			return nil
		}
	}
}

// readCA copies the PEM of the sandbox's CA out of the container, and a TLS configuration that
// trusts it alone.
func readCA(ctx context.Context, target wait.StrategyTarget, path string) ([]byte, *tls.Config, error) {
	file, err := target.CopyFileFromContainer(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	defer file.Close()
	caCert, err := io.ReadAll(file)
	if err != nil {
		return nil, nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caCert) { // e.g. read while the sandbox was writing it
		return nil, nil, fmt.Errorf("%s holds no certificate", path)
	}
	return caCert, &tls.Config{RootCAs: roots}, nil
}

// engineHost is the host Testcontainers reaches the container's ports on (a remote engine's, or a
// gateway from inside a container); "" when no engine can be reached (Run reports it). It asks the
// provider Run's containers get: NewDockerProvider's looks for the gateway on another network.
func engineHost(ctx context.Context) (string, error) {
	provider, err := testcontainers.ProviderDefault.GetProvider()
	if err != nil {
		return "", nil
	}
	defer provider.Close()
	docker, ok := provider.(*testcontainers.DockerProvider)
	if !ok {
		return "", fmt.Errorf("a provider of type %T", provider)
	}
	return docker.DaemonHost(ctx)
}

// withCertificateName adds host to the names of the certificate TLS=auto makes (TLS_NAMES).
func withCertificateName(host string) testcontainers.CustomizeRequestOption {
	return func(req *testcontainers.GenericContainerRequest) error {
		if req.Env["TLS"] == "auto" && host != "" {
			req.Env["TLS_NAMES"] = strings.TrimPrefix(req.Env["TLS_NAMES"]+","+host, ",")
		}
		return nil
	}
}

// requireImage uses the engine's image, or pulls it once; one neither there nor pullable fails
// before anything is created, naming it and how to get it, which the engine's error does not.
func requireImage(ctx context.Context, img string) error {
	provider, err := testcontainers.NewDockerProvider()
	if err != nil {
		return nil // Run reports an engine it cannot reach
	}
	defer provider.Close()
	if _, err := provider.Client().ImageInspect(ctx, img); err == nil || !errdefs.IsNotFound(err) {
		return nil
	}
	if err := provider.PullImage(ctx, img); err != nil {
		return fmt.Errorf("animalstore: the image %s is not on this Docker engine, and pulling it failed: %w; "+
			"build it in the sandbox's repository with `npm run image` (it tags the image :local and with the "+
			"package's version), or load a saved one with `docker load -i <file>`; or pass another image to Run", img, err)
	}
	return nil
}

// withExitOutput adds what an exited container printed (a refused setting, bad fixtures) to a
// start error: the wait strategy reports only the exit code.
func withExitOutput(ctx context.Context, ctr *testcontainers.DockerContainer, startErr error) error {
	if ctr == nil {
		return startErr
	}
	state, err := ctr.State(ctx)
	if err != nil || state.Running {
		return errors.Join(startErr, err)
	}
	logs, err := ctr.Logs(ctx)
	if err != nil {
		return errors.Join(startErr, fmt.Errorf("container logs: %w", err))
	}
	defer logs.Close()
	output, err := io.ReadAll(logs)
	if err != nil {
		return errors.Join(startErr, fmt.Errorf("container logs: %w", err))
	}
	if len(output) > maxStartOutput {
		output = output[len(output)-maxStartOutput:]
	}
	said := strings.TrimSpace(string(output))
	if said == "" {
		return fmt.Errorf("%w; the sandbox exited with code %d and printed nothing (docker inspect of the container may say why)", startErr, state.ExitCode)
	}
	return fmt.Errorf("%w; the sandbox said: %s", startErr, said)
}
