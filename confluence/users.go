package confluence

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// A User is a person a page mentions: the ri:user resource of a user link
// or of a profile macro's user parameter (Atlassian docs, 'Confluence
// Storage Format': Links, User). Cloud names users by AccountID; Data
// Center by UserKey, and older pages by Username.
type User struct {
	AccountID string // Cloud: "557058:0c1d2e3f-..."
	UserKey   string // Data Center: "8a7f808a6d0d6c3a016d0d6d0a3c0000"
	Username  string // Data Center: "bob.stone"
}

// ID is what shows for u when no display name is known: the account id,
// else the username, else the user key.
func (u User) ID() string {
	switch {
	case u.AccountID != "":
		return u.AccountID
	case u.Username != "":
		return u.Username
	}
	return u.UserKey
}

// userOf reads an ri:user element.
func userOf(n *html.Node) User {
	return User{AccountID: attr(n, "ri:account-id"), UserKey: attr(n, "ri:userkey"), Username: attr(n, "ri:username")}
}

// userName is how the ri:user element n shows: its display name, else its
// id.
func (w *walker) userName(n *html.Node) string {
	u := userOf(n)
	if w.users != nil {
		if name := strings.TrimSpace(w.users(u)); name != "" {
			return name
		}
	}
	return u.ID()
}

var (
	riUserRe = regexp.MustCompile(`<ri:user\b((?:\s+[^\s=/>"']+(?:\s*=\s*(?:"[^"]*"|'[^']*'))?)*)\s*/?>`)
	riAttrRe = regexp.MustCompile(`\bri:(account-id|userkey|username)\s*=\s*(?:"([^"]*)"|'([^']*)')`)
)

// storageUsers returns the users a page body mentions, each once, in order
// of appearance; code bodies (CDATA) are not read.
func storageUsers(storage string) []User {
	if !strings.Contains(storage, "<ri:user") {
		return nil
	}
	storage = cdataRe.ReplaceAllString(storage, "")
	var out []User
	seen := map[User]bool{}
	for _, m := range riUserRe.FindAllStringSubmatch(storage, -1) {
		var u User
		for _, a := range riAttrRe.FindAllStringSubmatch(m[1], -1) {
			v := html.UnescapeString(a[2] + a[3])
			switch a[1] {
			case "account-id":
				u.AccountID = v
			case "userkey":
				u.UserKey = v
			case "username":
				u.Username = v
			}
		}
		if u != (User{}) && !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}
