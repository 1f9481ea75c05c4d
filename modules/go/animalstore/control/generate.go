package control

// The types of the control API's bodies and parameters are generated from its spec: `go generate
// ./...` in modules/go remakes them, and types_test.go fails until it has.
//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml -o types.gen.go ../../../../spec/admin.openapi.yaml
