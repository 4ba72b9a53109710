package scipcalls

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
)

func TestMethodName(t *testing.T) {
	for _, tt := range []struct{ symbol, want string }{
		{"scip-python python requests 2.28.1 `requests.sessions`/Session#send().", "Session.send"},
		{"scip-python python requests 2.28.1 `requests.adapters`/HTTPAdapter#send().", "HTTPAdapter.send"},
		{"scip-typescript npm axios 1.7.9 lib/core/`Axios.js`/Axios#request().", "Axios.request"},
		{"scip-typescript npm . . lib/`store.js`/Store#close().", "Store.close"},
		{"scip-python python requests 2.28.1 `requests.api`/request().", "api.request"},
		{"scip-typescript npm . . lib/`app.js`/reset().", "app.reset"},
		{"scip-python python python-stdlib 3.11 builtins/dict#get().", "dict.get"},
		{"scip-typescript npm typescript 5.0 lib/`lib.es5.d.ts`/Array#forEach(+1).", "Array.forEach"},
		{"scip-python python shop 1 `shop.store`/Store#close().(self)", ""}, // a parameter
		{"scip-python python shop 1 `shop.store`/Store#", ""},               // a type
		{"scip-typescript npm . . lib/`store.js`/Store0:", ""},              // meta
		{"scip-python python shop 1 `shop.store`/Store#size.", ""},          // a field
		{"local 3", ""},
		{"scip-python python `my pkg` 1 `m`/outer().inner().", ""}, // nested function
		{"scip-python python `my pkg` 1 `m`/T#`odd``name`().", "T.odd`name"},
	} {
		if got := methodName(tt.symbol); got != tt.want {
			t.Errorf("methodName(%q) = %q, want %q", tt.symbol, got, tt.want)
		}
	}
}

// TestDecode reads an index built field by field as scip.proto lays it
// out, with a field the decoder does not know.
func TestDecode(t *testing.T) {
	occ := func(line int, sym string, roles int) []byte {
		var b []byte
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		var r []byte
		for _, v := range []int{line, 4, 9} {
			r = protowire.AppendVarint(r, uint64(v))
		}
		b = protowire.AppendBytes(b, r)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendString(b, sym)
		if roles != 0 {
			b = protowire.AppendTag(b, 3, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(roles))
		}
		return b
	}
	var doc []byte
	doc = protowire.AppendTag(doc, 4, protowire.BytesType) // language
	doc = protowire.AppendString(doc, "python")
	doc = protowire.AppendTag(doc, 1, protowire.BytesType)
	doc = protowire.AppendString(doc, "shop/app.py")
	doc = protowire.AppendTag(doc, 2, protowire.BytesType)
	doc = protowire.AppendBytes(doc, occ(4, "s p x 1 `m`/Store#close().", 0))
	doc = protowire.AppendTag(doc, 2, protowire.BytesType)
	doc = protowire.AppendBytes(doc, occ(1, "s p x 1 `m`/Store#", roleDefinition))
	var idx []byte
	idx = protowire.AppendTag(idx, 1, protowire.BytesType) // metadata
	idx = protowire.AppendBytes(idx, []byte{0x08, 0x01})
	idx = protowire.AppendTag(idx, 2, protowire.BytesType)
	idx = protowire.AppendBytes(idx, doc)
	got, err := decode(idx)
	if err != nil {
		t.Fatal(err)
	}
	want := []document{{path: "shop/app.py", occurrences: []occurrence{{4, 4, "s p x 1 `m`/Store#close().", 0}, {1, 4, "s p x 1 `m`/Store#", 1}}}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(document{}, occurrence{})); diff != "" {
		t.Errorf("decode (-want +got):\n%s", diff)
	}
	calls := fileCalls(got[0], []byte("a\nb\nc\nd\n  s.close() or t.close()\n  u.open()\n"))
	wantCalls := []Call{{5, UnresolvedPrefix + "close"}, {5, "Store.close"}, {6, UnresolvedPrefix + "open"}} // t.close: no symbol
	if diff := cmp.Diff(wantCalls, calls); diff != "" {
		t.Errorf("fileCalls (-want +got):\n%s", diff)
	}
	if _, err := decode(idx[:len(idx)-3]); err == nil {
		t.Error("decode of a truncated index: no error")
	}
}
