package bot

import "slices"

// Access maps conversations to the ids of the sources ("repo:payments") their
// members may see, and ACL groups to their members. The ids and groups go
// into the Weaviate query (retrieval.Request Sources and Groups), so a chunk
// of any other source, or one whose ACL names none of the groups, cannot be
// retrieved there.
type Access struct {
	Default  []string            // for conversations not in Channels, direct messages included
	Channels map[string][]string // by conversation id
	// Groups maps an ACL group to its members: user ids and conversation
	// ids (config access.groups).
	Groups map[string][]string
}

// Sources returns the source ids channel may see; empty means none, and the
// bot then answers without searching.
func (a Access) Sources(channel string) []string {
	if ids, ok := a.Channels[channel]; ok {
		return ids
	}
	return a.Default
}

// GroupsFor returns the ACL groups, sorted, whose chunks an answer in
// conversation may show: the groups that list the conversation, and, when
// the answer is private (seen by user alone: a direct message, a Teams
// personal chat, the private /where-is list), those that list user. A
// user's groups never apply in a shared conversation, where everyone in it
// reads the answer.
func (a Access) GroupsFor(conversation, user string, private bool) []string {
	var out []string
	for g, members := range a.Groups {
		if (conversation != "" && slices.Contains(members, conversation)) ||
			(private && user != "" && slices.Contains(members, user)) {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out
}
