package bot

// Access maps conversations to the ids of the sources ("repo:payments") their
// members may see. The ids go into the Weaviate query (retrieval.Request
// Sources), so a chunk of any other source cannot be retrieved there.
type Access struct {
	Default  []string            // for conversations not in Channels, direct messages included
	Channels map[string][]string // by conversation id
}

// Sources returns the source ids channel may see; empty means none, and the
// bot then answers without searching.
func (a Access) Sources(channel string) []string {
	if ids, ok := a.Channels[channel]; ok {
		return ids
	}
	return a.Default
}
