package control

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// AwaitRequests waits on the sandbox until namespace's journal holds the calls wait expects, the
// namespace was quiet for wait.QuietMs, or the deadline wait.TimeoutMs (10 s when 0, at most
// 30 s): for a call the service under test makes later, from a job or a queue, with no sleep. It
// answers verify's result then, with EndedBy and WaitedMs, passed or not (AssertAwaited checks
// it); a refusal is an error with the sandbox's message. The default namespace when namespace is "".
//
//	result, err := control.AwaitRequests(ctx, admin, name, control.AwaitRequest{
//		Expectations: []control.Expectation{control.Expect("createPet").Times(1)}, TimeoutMs: 5000})
//	require.NoError(t, err)
//	result.AssertAwaited(t)
func AwaitRequests(ctx context.Context, c ClientWithResponsesInterface, namespace string, wait AwaitRequest) (*AwaitResult, error) {
	params := &AwaitRequestsParams{}
	if namespace != "" {
		params.Namespace = &namespace
	}
	resp, err := c.AwaitRequestsWithResponse(ctx, params, wait)
	if err != nil {
		return nil, err
	}
	if resp.JSON200 == nil {
		return nil, refusal("POST /requests/await", resp.StatusCode(), resp.Body)
	}
	return resp.JSON200, nil
}

// StrayCalls lists the calls no running test made that test's namespace caused (every test's when
// test is ""), for AssertNoStrayCalls: a call into it after its test ended, one whose trace is its
// test's in another namespace.
func StrayCalls(ctx context.Context, c ClientWithResponsesInterface, test string) (*StrayReport, error) {
	params := &ListStrayRequestsParams{}
	if test != "" {
		params.Test = &test
	}
	resp, err := c.ListStrayRequestsWithResponse(ctx, params)
	if err != nil {
		return nil, err
	}
	if resp.JSON200 == nil {
		return nil, refusal("GET /requests/strays", resp.StatusCode(), resp.Body)
	}
	return resp.JSON200, nil
}

// AssertAwaited fails the test (t.Errorf) unless the wait passed, with the sandbox's account as
// AssertVerified gives it and what ended the wait. It returns whether it passed.
func (r AwaitResult) AssertAwaited(t testing.TB) bool {
	t.Helper()
	if !r.Passed {
		t.Errorf("verification (namespace %s) %s (the wait ended by %s after %d ms)", r.Namespace, r.Message, r.EndedBy, r.WaitedMs)
	}
	return r.Passed
}

// AssertNoStrayCalls fails the test (t.Errorf) with the sandbox's message naming each stray call
// of the report, one line each. It returns whether there was none.
//
//	strays, err := control.StrayCalls(ctx, admin, name)
//	require.NoError(t, err)
//	strays.AssertNoStrayCalls(t)
func (r StrayReport) AssertNoStrayCalls(t testing.TB) bool {
	t.Helper()
	if len(r.Strays) == 0 {
		return true
	}
	t.Errorf("%s", r.Message)
	return false
}

// refusal is the error of a call the sandbox refused, with its Error body's text.
func refusal(operation string, status int, body []byte) error {
	return fmt.Errorf("%s answered %d: %s", operation, status, strings.TrimSpace(string(body)))
}
