package teams

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/bot"
)

func TestQuestion(t *testing.T) {
	const botID = "28:8e6f0a52-1c9d-4b8a-9d55-3f1c2d4e5a6b"
	mention := func(text, id string) Entity {
		return Entity{Type: "mention", Text: text, Mentioned: Account{ID: id}}
	}
	tests := []struct {
		name     string
		text     string
		entities []Entity
		want     string
	}{
		{"channel mention", "<at>RagBot</at> where is the retry for 503?\n", []Entity{mention("<at>RagBot</at>", botID)}, "where is the retry for 503?"},
		{"display name differs", "<at>ragbot (prod)</at> where is X?", []Entity{mention("<at>ragbot (prod)</at>", botID)}, "where is X?"},
		{"mention at the end", "where is X? <at>RagBot</at>", []Entity{mention("<at>RagBot</at>", botID)}, "where is X?"},
		{"someone else keeps their name", "<at>RagBot</at> what did <at>Ann Lee</at> change in retry.go?",
			[]Entity{mention("<at>RagBot</at>", botID), mention("<at>Ann Lee</at>", "29:ann")}, "what did Ann Lee change in retry.go?"},
		{"entities unescaped", "<at>RagBot</at> where is List&lt;String&gt; parsed &amp; why?", []Entity{mention("<at>RagBot</at>", botID)}, "where is List<String> parsed & why?"},
		{"personal chat, no mention", "  where is\u00a0X?  ", nil, "where is X?"},
		{"only the mention", "<at>RagBot</at>\n", []Entity{mention("<at>RagBot</at>", botID)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Activity{Text: tt.text, Entities: tt.entities, Recipient: Account{ID: botID}}
			if got := a.question(); got != tt.want {
				t.Errorf("question() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPlace(t *testing.T) {
	tests := []struct {
		name string
		a    Activity
		want bot.Thread
	}{
		{"channel", Activity{ID: "1712345678901", Conversation: Conversation{ID: "19:abc@thread.tacv2;messageid=1712345000000", ConversationType: "channel"},
			ChannelData: ChannelData{TeamsChannelID: "19:abc@thread.tacv2"}}, bot.Thread{Channel: "19:abc@thread.tacv2", TS: "1712345678901"}},
		{"channel without channelData", Activity{ID: "2", Conversation: Conversation{ID: "19:abc@thread.tacv2;messageid=1", ConversationType: "channel"}},
			bot.Thread{Channel: "19:abc@thread.tacv2", TS: "2"}},
		{"group chat", Activity{ID: "3", Conversation: Conversation{ID: "19:meeting_x@thread.v2", ConversationType: "groupChat"}},
			bot.Thread{Channel: "19:meeting_x@thread.v2", TS: "3"}},
		{"personal", Activity{ID: "4", Conversation: Conversation{ID: "a:1Xyz", ConversationType: "personal"}}, bot.Thread{Channel: "a:1Xyz", TS: "4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.a.place()); diff != "" {
				t.Errorf("place() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestActivityURL(t *testing.T) {
	tests := []struct {
		service, conv, id, want string
	}{
		{"https://smba.trafficmanager.net/emea/", "19:abc@thread.tacv2;messageid=17", "17",
			"https://smba.trafficmanager.net/emea/v3/conversations/19%3Aabc%40thread.tacv2%3Bmessageid%3D17/activities/17"},
		{"https://smba.trafficmanager.net/amer", "a:1X_y-z.~", "",
			"https://smba.trafficmanager.net/amer/v3/conversations/a%3A1X_y-z.~/activities"},
		{"http://127.0.0.1:5/", "x/y?z#w", "1:2", "http://127.0.0.1:5/v3/conversations/x%2Fy%3Fz%23w/activities/1%3A2"},
	}
	for _, tt := range tests {
		if got := activityURL(tt.service, tt.conv, tt.id); got != tt.want {
			t.Errorf("activityURL(%q, %q, %q) = %q, want %q", tt.service, tt.conv, tt.id, got, tt.want)
		}
		if _, err := http.NewRequest(http.MethodPost, tt.want, nil); err != nil {
			t.Errorf("%s: %v", tt.want, err)
		}
	}
}

func TestKeepSpaces(t *testing.T) {
	const n = "\u00a0"
	tests := []struct{ in, want string }{
		{"func f() {", "func f() {"},
		{"\treturn x", n + n + n + n + "return x"},
		{"  a  :=   1 // x", n + n + "a" + n + " :=" + n + n + " 1 // x"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := keepSpaces(tt.in); got != tt.want {
			t.Errorf("keepSpaces(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTrimCode(t *testing.T) {
	code := "line one\nline two\nline three\n"
	tests := []struct {
		limit, more int
		want        string
		wantMore    int
	}{
		{100, 0, "line one\nline two\nline three", 0},
		{17, 2, "line one\nline two", 3},
		{4, 0, "line…", 2},
	}
	for _, tt := range tests {
		got, more := trimCode(code, tt.more, tt.limit)
		if got != tt.want || more != tt.wantMore {
			t.Errorf("trimCode(limit %d) = %q, %d; want %q, %d", tt.limit, got, more, tt.want, tt.wantMore)
		}
	}
}

func TestUTF16Size(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"abc", 6},
		{"é", 2},    // 2 UTF-8 bytes, 1 UTF-16 unit
		{"✓", 2},    // 3 UTF-8 bytes, 1 unit
		{"🚀", 4},    // 4 UTF-8 bytes, a surrogate pair
		{"\xff", 2}, // invalid UTF-8 counts as one unit
	}
	for _, tt := range tests {
		if got := utf16Size([]byte(tt.in)); got != tt.want {
			t.Errorf("utf16Size(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
