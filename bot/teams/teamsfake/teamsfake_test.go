package teamsfake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"

	"github.com/ragbot/ragbot/bot/teams/teamsfake"
)

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// TestKeysAndTokens: the metadata points at the JWKS, whose keys carry
// endorsements and verify the minted tokens; unpublished keys are absent.
func TestKeysAndTokens(t *testing.T) {
	s := teamsfake.New(t, teamsfake.Options{})
	var meta struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	getJSON(t, s.MetadataURL(), &meta)
	if meta.Issuer != teamsfake.Issuer || meta.JWKSURI == "" {
		t.Fatalf("metadata %+v", meta)
	}
	var raw json.RawMessage
	getJSON(t, meta.JWKSURI, &raw)
	var set struct {
		Keys []struct {
			KID          string   `json:"kid"`
			Endorsements []string `json:"endorsements"`
		} `json:"keys"`
	}
	_ = json.Unmarshal(raw, &set)
	if len(set.Keys) != 1 || set.Keys[0].KID != teamsfake.KeyID || strings.Join(set.Keys[0].Endorsements, ",") != "msteams,webchat" {
		t.Errorf("keys %+v, want %s endorsed for msteams and webchat", set.Keys, teamsfake.KeyID)
	}
	kf, err := keyfunc.NewJWKSetJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	var claims jwt.MapClaims
	if _, err := jwt.ParseWithClaims(s.Token(s.ValidClaims("https://svc/")), &claims, kf.Keyfunc); err != nil {
		t.Errorf("minted token does not verify with the JWKS: %v", err)
	}
	if claims["serviceurl"] != "https://svc/" || claims["aud"] != teamsfake.AppID {
		t.Errorf("claims %v", claims)
	}
	if _, err := jwt.Parse(s.Token(teamsfake.Claims{KID: "unpublished"}), kf.Keyfunc); err == nil {
		t.Error("a token of an unpublished key verifies")
	}
}

// TestTokenAndConnector: the token endpoint checks the credentials, the
// connector the issued token, the 40 KB limit and injected 429s.
func TestTokenAndConnector(t *testing.T) {
	s := teamsfake.New(t, teamsfake.Options{})
	token := func(secret string) (int, string) {
		resp, err := http.PostForm(s.TokenURL(), url.Values{"grant_type": {"client_credentials"}, "client_id": {teamsfake.AppID},
			"client_secret": {secret}, "scope": {"https://api.botframework.com/.default"}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r struct {
			AccessToken string `json:"access_token"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&r)
		return resp.StatusCode, r.AccessToken
	}
	if code, _ := token("wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong secret: HTTP %d, want 401", code)
	}
	code, tok := token(teamsfake.AppPassword)
	if code != http.StatusOK || tok == "" {
		t.Fatalf("token: HTTP %d %q", code, tok)
	}
	post := func(bearer, body string) int {
		req, _ := http.NewRequest(http.MethodPost, s.ServiceURL()+"v3/conversations/a%3A1chat/activities/17", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	msg := `{"type":"message","text":"hi"}`
	if code := post("made-up", msg); code != http.StatusUnauthorized {
		t.Errorf("made-up token: HTTP %d, want 401", code)
	}
	if code := post(tok, `{"type":"message","text":"`+strings.Repeat("é", teamsfake.MaxActivity/2)+`"}`); code != http.StatusRequestEntityTooLarge {
		t.Errorf("over 40 KB in UTF-16: HTTP %d, want 413", code)
	}
	s.RateLimit(http.MethodPost, 2)
	if code := post(tok, msg); code != http.StatusTooManyRequests {
		t.Errorf("rate limited: HTTP %d, want 429", code)
	}
	if code := post(tok, msg); code != http.StatusCreated {
		t.Errorf("reply: HTTP %d, want 201", code)
	}
	if r := s.Replies("a:1chat", "17"); len(r) != 1 || r[0].Text != "hi" {
		t.Errorf("replies %+v", r)
	}
}
