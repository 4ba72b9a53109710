module github.com/ragbot/ragbot/tools/codesearch

go 1.26.8

require github.com/ragbot/ragbot v0.0.0

require (
	github.com/google/uuid v1.6.0 // indirect
	github.com/smacker/go-tree-sitter v0.0.0-20240827094217-dd81d9e9be82 // indirect
)

replace github.com/ragbot/ragbot => ../..
