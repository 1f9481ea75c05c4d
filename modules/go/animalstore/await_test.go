package animalstore_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

// failures is a testing.TB that records what an assertion reports instead of failing the test.
type failures struct {
	testing.TB
	errors []string
}

func (f *failures) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

// A goroutine makes the call after a random delay, as a service's background job would; the test
// waits for it on the sandbox, with no sleep.
func TestAwaitRequests_aCallMadeLaterIsAwaitedWithNoSleep(t *testing.T) {
	t.Parallel()
	admin, name := testNamespace(t, "")
	ctx := t.Context()
	delay := rand.N(time.Second)
	answered := make(chan string, 1)
	job := apiRequest(t, name, "/pets")
	go func() {
		time.Sleep(delay) // the job's own delay, not the test's
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(job)
		if err != nil {
			answered <- err.Error()
			return
		}
		resp.Body.Close()
		answered <- resp.Status
	}()

	result, err := control.AwaitRequests(ctx, admin, name, control.AwaitRequest{
		Expectations: []control.Expectation{control.Expect("listPets").Times(1)}, TimeoutMs: 10_000})
	require.NoError(t, err)
	result.AssertAwaited(t)
	// The job's own answer: a wait that ended by deadline says nothing of why the call is missing.
	require.Equal(t, "200 OK", <-answered, "the call made after %s", delay)
	require.Equal(t, control.AwaitResultEndedBy("met"), result.EndedBy, "the call made after %s", delay)

	missing, err := control.AwaitRequests(ctx, admin, name, control.AwaitRequest{
		Expectations: []control.Expectation{control.Expect("createPet").AtLeast(1)}, TimeoutMs: 200})
	require.NoError(t, err)
	require.Equal(t, control.AwaitResultEndedBy("deadline"), missing.EndedBy)
	recorded := &failures{TB: t}
	require.False(t, missing.AssertAwaited(recorded))
	require.Len(t, recorded.errors, 1)
	require.Regexp(t, `createPet[\s\S]*\(the wait ended by deadline after \d+ ms\)$`, recorded.errors[0])

	_, err = control.AwaitRequests(ctx, admin, name, control.AwaitRequest{TimeoutMs: 60_000})
	require.ErrorContains(t, err, "POST /requests/await answered 400")
}

// A call into the namespace after its test ended is a stray call of that test, named.
func TestAssertNoStrayCalls_aCallAfterTheTestEndedIsNamed(t *testing.T) {
	t.Parallel()
	admin, name := testNamespace(t, "")
	ctx := t.Context()
	callAPI(t, name, http.MethodGet, "/pets", nil)
	// The service settles before its test ends: the namespace quiet for 10 ms.
	settled, err := control.AwaitRequests(ctx, admin, name, control.AwaitRequest{QuietMs: 10})
	require.NoError(t, err)
	require.Equal(t, control.AwaitResultEndedBy("quiet"), settled.EndedBy)
	ended, err := admin.EndTestWithResponse(ctx, name)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, ended.StatusCode(), "%s", ended.Body)
	// The call made during the test is no stray.
	strays, err := control.StrayCalls(ctx, admin, name)
	require.NoError(t, err)
	strays.AssertNoStrayCalls(t)

	callAPI(t, name, http.MethodGet, "/pets", nil)
	strays, err = control.StrayCalls(ctx, admin, name)
	require.NoError(t, err)
	recorded := &failures{TB: t}
	require.False(t, strays.AssertNoStrayCalls(recorded))
	require.Equal(t, []string{fmt.Sprintf("stray calls (test %s):\n- after-end: listPets (GET /v1/pets) answered 200, in namespace %s", name, name)},
		recorded.errors)

	others, err := control.StrayCalls(ctx, admin, namespaceName(t, "another"))
	require.NoError(t, err)
	require.True(t, others.AssertNoStrayCalls(t), "another test's report holds none of them")
}

// apiRequest is a GET of the API in the namespace, with the shared sandbox's key.
func apiRequest(t *testing.T, namespace, path string) *http.Request {
	baseURL, err := sharedSandbox(t).BaseURL(t.Context())
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodGet, baseURL+path, nil)
	require.NoError(t, err)
	req.Header = sharedSandbox(t).APIHeader(namespace)
	return req
}
