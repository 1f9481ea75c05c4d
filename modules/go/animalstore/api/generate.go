package api

// The Animal Store API's types, generated from its spec as ../control's are.
//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml -o types.gen.go ../../../../spec/openapi.yaml
