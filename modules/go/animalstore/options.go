package animalstore

import (
	"path/filepath"
	"strconv"

	"github.com/testcontainers/testcontainers-go"
)

// Each option sets a setting of the sandbox in the container's environment, as given: the
// sandbox checks them all when it starts, and Run fails with its message when it refuses one.

// WithSeed generates the initial pets from this seed (SEED): the same seed gives the same pets.
func WithSeed(seed int) testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{"SEED": strconv.Itoa(seed)})
}

// WithSeedCount sets how many pets the seed generates (SEED_COUNT).
func WithSeedCount(count int) testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{"SEED_COUNT": strconv.Itoa(count)})
}

// WithAPIKey sets the key API calls must send (API_KEYS) instead of a random one.
func WithAPIKey(key string) testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{"API_KEYS": key})
}

// WithAdminToken sets the control API's token (ADMIN_TOKEN) instead of a random one.
func WithAdminToken(token string) testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{"ADMIN_TOKEN": token})
}

// WithFixtures loads the initial pets from this JSON file on the host, copied to /fixtures/<name>.
func WithFixtures(path string) testcontainers.CustomizeRequestOption {
	target := "/fixtures/" + filepath.Base(path)
	return func(req *testcontainers.GenericContainerRequest) error {
		// The sandbox runs as a non-root user.
		file := testcontainers.ContainerFile{HostFilePath: path, ContainerFilePath: target, FileMode: 0o644}
		if err := testcontainers.WithFiles(file)(req); err != nil {
			return err
		}
		return testcontainers.WithEnv(map[string]string{"FIXTURES": target})(req)
	}
}

// WithInMemory keeps the data in memory (DATA_FILE=:memory:) instead of the container's /data volume.
func WithInMemory() testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{"DATA_FILE": ":memory:"})
}

// WithTLS serves HTTPS, and HTTP/2 to clients that ask, with a CA the sandbox makes at start
// (TLS=auto) and writes where the module copies it from (TLS_CA_OUT): BaseURL is then https, and
// CACert and TLSConfig give the CA, which the health wait and Control trust alone.
func WithTLS() testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{"TLS": "auto", "TLS_CA_OUT": caPath})
}
