package main

import "testing"

func TestStrip(t *testing.T) {
	tests := []struct {
		name, symbol, sentence string
		want                   string
		wantFirst              bool
		wantInner              int
	}{
		{"go name and pieces", "NewRouter", "NewRouter returns a new router that dispatches requests.",
			"returns a that dispatches requests.", true, 2},
		{"receiver type pieces", "UserRepository.findByEmail", "findByEmail looks up a user by their email address.",
			"looks up a by their address.", true, 2},
		{"snake case and code words", "parse_header", "Return the parsed_value of the header field.",
			"Return the of the field.", false, 2},
		{"plural of a piece", "Mux.Routes", "Routes lists the registered routes of the mux.",
			"lists the registered.", true, 2},
		{"dotted call and inflected verb", "Conn.Close", "Close closes the Conn and calls r.Body.Close() once.",
			"the and calls once.", true, 3},
		{"words kept", "Pool.Get", "Get takes an idle connection from the pool or dials a new one.",
			"takes an idle connection from the or dials a new one.", true, 1},
		{"camel case elsewhere is code", "Start", "Start begins serving with the configured httpServer.",
			"begins serving with the configured.", true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, first, inner, _ := newRemover(tt.symbol).strip(tt.sentence)
			if got != tt.want || first != tt.wantFirst || inner != tt.wantInner {
				t.Errorf("strip(%q) = %q, first %v, inner %d; want %q, %v, %d",
					tt.sentence, got, first, inner, tt.want, tt.wantFirst, tt.wantInner)
			}
		})
	}
}

func TestLooksLikeCode(t *testing.T) {
	for w, want := range map[string]bool{
		"snake_case": true, "camelCase": true, "PascalCase": true, "r.URL": true, "close()": true,
		"JSON": false, "HTTP": false, "URLs": false, "Mux": false, "v1.2.3": false, "routes": false,
	} {
		if got := looksLikeCode(w); got != want {
			t.Errorf("looksLikeCode(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestGarbled(t *testing.T) {
	tests := []struct {
		s    string
		tail bool
		want bool
	}{
		{"returns a that dispatches requests.", false, true},         // article before "that"
		{"lists a represents.", false, true},                         // article before a verb
		{"waits for to drain.", false, true},                         // preposition before preposition
		{"is an parsing error.", false, true},                        // "an" before a consonant
		{"returns a copy of the header.", false, false},              // fine
		{"sends the request to the server.", false, false},           // "to the" is fine
		{"removes all watches and closes.", true, true},              // the object was removed
		{"sends the request and records the response.", true, false}, // ends with a noun
	}
	for _, tt := range tests {
		if got := garbled(tt.s, tt.tail); got != tt.want {
			t.Errorf("garbled(%q, %v) = %v, want %v", tt.s, tt.tail, got, tt.want)
		}
	}
}
