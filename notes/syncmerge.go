package notes

// Resolutions for `git scribe sync`, which replays local scribe commits onto
// the remote branch: the journal merges entry by entry (MergeJournal); the
// files a wrap overwrites whole keep one version.

// MergeBridge resolves two bridge notes written independently (two machines
// wrapping the same vault): the note is overwritten by every wrap, so the
// newer one — by its Updated line — wins whole; on a tie, or when either
// does not parse, theirs (the note being replayed, published last) wins.
// The other note stays in history.
func MergeBridge(base, ours, theirs string) string {
	o, oerr := ParseBridgeNote(ours)
	t, terr := ParseBridgeNote(theirs)
	if oerr == nil && terr == nil && o.Updated.After(t.Updated) {
		return ours
	}
	return theirs
}
