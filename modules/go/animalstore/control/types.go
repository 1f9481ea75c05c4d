package control

import "maps"

// Operation returns the coverage of the operation operationID, and whether the API has it.
func (r CoverageReport) Operation(operationID string) (OperationCoverage, bool) {
	for _, op := range r.Operations {
		if op.OperationID == operationID {
			return op, true
		}
	}
	return OperationCoverage{}, false
}

// Expect expects at least one call of operationID, until a count or bounds are set:
//
//	control.Expect("createPet").Times(1).WithBody(map[string]any{"categoryId": 3})
func Expect(operationID string) Expectation {
	return Expectation{OperationID: operationID}
}

// Times expects exactly n matching calls.
func (e Expectation) Times(n int) Expectation {
	e.Count, e.Min, e.Max = &n, nil, nil
	return e
}

// Never expects no matching call.
func (e Expectation) Never() Expectation {
	return e.Times(0)
}

// AtLeast expects n matching calls or more.
func (e Expectation) AtLeast(n int) Expectation {
	e.Count, e.Min = nil, &n
	return e
}

// AtMost expects n matching calls or fewer.
func (e Expectation) AtMost(n int) Expectation {
	e.Count, e.Max = nil, &n
	return e
}

// WithBody sets the JSON value the request body must contain.
func (e Expectation) WithBody(body any) Expectation {
	e.Body = body
	return e
}

// WithHeader adds a header the call must carry.
func (e Expectation) WithHeader(name, value string) Expectation {
	e.Headers = maps.Clone(e.Headers)
	if e.Headers == nil {
		e.Headers = map[string]string{}
	}
	e.Headers[name] = value
	return e
}
