package control

// The control API's client and the types of its bodies and parameters are generated from its spec:
// `go generate ./...` in modules/go remakes them, and generate_test.go fails until it has.
//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml -o control.gen.go ../../../../spec/admin.openapi.yaml
