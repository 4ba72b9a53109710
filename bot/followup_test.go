package bot_test

import (
	"testing"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/retrieval"
)

func TestFollowUp(t *testing.T) {
	root := "where is the handler for the orders endpoint?"
	tests := []struct {
		name     string
		question string
		earlier  []string
		want     string
	}{
		{
			name:     "short follow-up takes the root's terms",
			question: "and for the v2 endpoint?",
			earlier:  []string{root},
			// QueryTerms(root) = handler, orders, endpoint; endpoint is already asked.
			want: "and for the v2 endpoint? handler orders",
		},
		{
			name:     "root and latest message",
			question: "what about retries?",
			earlier:  []string{root, "it calls paymentClient.charge first"},
			// The root's 3 terms, then the latest message's ("it" is a question
			// word; "paymentClient" gives its pieces and their join, see
			// retrieval.Terms) until the cap of 8, which leaves out "first".
			want: "what about retries? handler orders endpoint calls payment client paymentclient charge",
		},
		{
			name:     "a full question stands alone",
			question: "where is UserRepository.findByEmail defined in the java service?",
			earlier:  []string{root},
			want:     "where is UserRepository.findByEmail defined in the java service?",
		},
		{
			name:     "no thread",
			question: "and v2?",
			want:     "and v2?",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bot.FollowUp(tt.question, tt.earlier); got != tt.want {
				t.Errorf("FollowUp(%q, %q) = %q, want %q", tt.question, tt.earlier, got, tt.want)
			}
		})
	}
}

func TestDefinitions(t *testing.T) {
	snip := func(sym string) retrieval.Snippet {
		return retrieval.Snippet{Citation: retrieval.Citation{Symbol: sym, Path: sym + ".go"}}
	}
	all := []retrieval.Snippet{snip("OrderService.Find"), snip("UserRepository.findByEmail"), snip(""),
		snip("findByEmail"), snip("Users > findByEmail"), snip("UserRepository#findByEmailAddress")}
	tests := []struct {
		ident    string
		wantDefs []string
	}{
		{"UserRepository.findByEmail", []string{"UserRepository.findByEmail", "findByEmail"}},
		{"findByEmail()", []string{"UserRepository.findByEmail", "findByEmail"}},
		{"userrepository::FINDBYEMAIL", []string{"UserRepository.findByEmail", "findByEmail"}},
		{"find by email", nil},
		{"Find", []string{"OrderService.Find"}},
	}
	for _, tt := range tests {
		defs, rest := bot.Definitions(all, tt.ident)
		var got []string
		for _, d := range defs {
			got = append(got, d.Symbol)
		}
		if len(got) != len(tt.wantDefs) || len(defs)+len(rest) != len(all) {
			t.Errorf("Definitions(%q) defs %q (+%d rest), want %q", tt.ident, got, len(rest), tt.wantDefs)
			continue
		}
		for i := range got {
			if got[i] != tt.wantDefs[i] {
				t.Errorf("Definitions(%q) defs %q, want %q", tt.ident, got, tt.wantDefs)
			}
		}
	}
}
