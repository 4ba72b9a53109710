package code

import "testing"

// BenchmarkChunkGo chunks a 507-line Go file of types and methods.
func BenchmarkChunkGo(b *testing.B) {
	src := readTestdata(b, "orders_service.go")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if r := Chunk("orders/service.go", src, Options{}); r.Fallback != "" {
			b.Fatalf("Fallback = %q, want symbols", r.Fallback)
		}
	}
}
